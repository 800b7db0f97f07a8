#!/usr/bin/env bash
# Fails on a tuple literal whose element after the first is awaited, e.g.
# `return (index, .success(try await f()))`. Swift 6.3's optimiser can drop the elements written
# before the suspension when such a tuple is an async function's or a task's result
# (swiftlang/swift#91911, reverted in #92155; issue 28: `watch` crashed on a garbage index).
# Await first, into a local, then build the value. Conservative: it also flags an awaited call
# argument after the first (safe, but written the same way here), and reads no comment.
set -euo pipefail
cd "$(dirname "$0")/.."
found=$(find Sources Tools Tests -name '*.swift' -print0 | xargs -0 perl -0777 -ne '
    s{//[^\n]*}{}g;
    while (/\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?,\s*(?:\.\w+\()?\s*(?:try\s+)?await\b/g) {
        my $line = 1 + (() = substr($_, 0, $-[0]) =~ /\n/g);
        print "$ARGV:$line\n";
    }')
if [ -n "$found" ]; then
    echo "check-split-tuples: an element awaited inside a tuple literal (await into a local first):" >&2
    echo "$found" >&2
    exit 1
fi
echo "check-split-tuples: no tuple literal awaits an element"
