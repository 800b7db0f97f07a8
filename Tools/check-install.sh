#!/usr/bin/env bash
# Installs netclock with Tools/install.sh into a temporary prefix and checks what it installed: the
# binary answers --version and loads nothing from the Swift toolchain, the man page is lint-clean
# for mandoc and shown by `man -l` and by `man` through the prefix's MANPATH, the completion scripts
# load (bash completes a command, zsh and fish parse them); then uninstalls and checks that no file
# is left. CI runs it (.ci/run); it needs
# mandoc, man, zsh and fish (apt-get install -y mandoc man-db zsh fish).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-install: $*" >&2; exit 1; }
for tool in mandoc man zsh fish; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install -y mandoc man-db zsh fish)"
done

prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
Tools/install.sh --prefix "$prefix"

version=$("$prefix/bin/netclock" --version)
[[ $version == "netclock "* ]] || fail "--version printed '$version'"
echo "check-install: $prefix/bin/netclock --version: $version"
# Statically linked Swift runtime: nothing loaded from the toolchain's directory (where `swift` is).
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
libraries=$(ldd "$prefix/bin/netclock")
! grep -qF "$toolchain" <<<"$libraries" || fail "the installed netclock loads from the toolchain: $libraries"
echo "check-install: ldd names nothing under $toolchain"

page=$prefix/share/man/man1/netclock.1
lint=$(mandoc -T lint -W all "$page" 2>&1) || fail "mandoc -T lint: $lint"
[[ -z $lint ]] || fail "mandoc -T lint: $lint"
MANPAGER=cat MANWIDTH=100 man -l "$page" 2>&1 | grep -q '^NETCLOCK(1)' || fail "man -l does not show $page"
[[ $(MANPATH=$prefix/share/man man -w netclock) == "$page" ]] || fail "man does not find $page in the prefix"
echo "check-install: mandoc -T lint is clean and man -l shows the page"

bash --norc --noprofile -c \
    'source "$1" && COMP_WORDS=(netclock q) && COMP_CWORD=1 && _netclock && [[ ${COMPREPLY[*]} == query ]]' \
    bash "$prefix/share/bash-completion/completions/netclock" || fail "the bash completion does not complete 'netclock q'"
zsh -n "$prefix/share/zsh/site-functions/_netclock" || fail "zsh cannot parse _netclock"
fish --no-execute "$prefix/share/fish/vendor_completions.d/netclock.fish" || fail "fish cannot parse netclock.fish"
echo "check-install: the bash completion completes 'netclock q'; zsh and fish parse theirs"

Tools/install.sh --prefix "$prefix" --uninstall
left=$(find "$prefix" ! -type d)
[[ -z $left ]] || fail "--uninstall left $left"
echo "check-install: --uninstall removed every file it installed"
