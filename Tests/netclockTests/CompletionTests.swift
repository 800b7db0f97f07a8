import Foundation
import LoopbackServers
import Testing

@testable import NetclockCLI
import WallClockReference

/// `netclock completion bash|zsh|fish`, loaded in the real shells: bash and fish are asked for
/// completions (commands, each command's options from the option table, choices, file names); zsh's
/// script must parse and register. A missing shell skips with the reason; with
/// `NETCLOCK_REQUIRE_PEERS=1` (CI) it fails.
@Suite(.serialized, .wallClockReference)
struct CompletionTests {
    static func missing(_ shell: String) -> Comment {
        "\(shell) not installed (apt-get install -y \(shell)): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"
    }

    /// The script as the built binary prints it, in a file of a private directory, which also holds
    /// a file for file-name completion.
    private func withScript(_ shell: String, _ body: (_ script: String, _ directory: String) throws -> Void)
        async throws
    {
        let output = try await CLIRunner.run(["completion", shell])
        #expect(output.status == 0 && output.stderr.isEmpty)
        #expect(output.stdout == (CompletionScript.script(for: shell) ?? "") + "\n")
        let directory = try LoopbackPorts.makePrivateTemporaryDirectory(prefix: "netclock-completion")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = directory + "/netclock.\(shell)"
        try output.stdout.write(toFile: script, atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/servers.json", atomically: true, encoding: .utf8)
        try body(script, directory)
    }

    /// The three runs at once: each only waits on its own child.
    @Test func unknownShellsAreUsageErrors() async throws {
        await concurrently([["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"]]) {
            arguments in
            let output = try await CLIRunner.run(arguments)
            #expect(output.status == 2 && output.stdout.isEmpty, "\(arguments)")
            #expect(output.stderr.contains("completion needs one shell: bash, zsh, fish"), "\(arguments)")
        }
    }

    // MARK: bash

    /// Ends each answer in the shells' output: no completion offers it.
    static let end = "<end of completions>"

    /// What `_netclock` offers for each list of words (the last one the word being completed), all
    /// asked of one bash, as an interactive shell calls the function once per Tab: one bash start
    /// instead of one per list.
    private func bashCompletes(_ queries: [[String]], bash: String, script: String, in directory: String)
        throws -> [[String]: [String]]
    {
        let program = """
            source "$1" || exit 9
            complete -p netclock >/dev/null || exit 8
            shift
            cd "$DIR" || exit 7
            netclock_test_words=()
            for netclock_test_word in "$@"; do
                if [[ $netclock_test_word != "$END" ]]; then
                    netclock_test_words+=("$netclock_test_word")
                    continue
                fi
                COMP_WORDS=("${netclock_test_words[@]}")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                _netclock
                printf '%s\\n' "${COMPREPLY[@]}" "$END"
                netclock_test_words=()
            done
            """
        let result = try InteropTool.run(
            bash,
            ["--norc", "--noprofile", "-c", program, "bash", script] + queries.flatMap { $0 + [Self.end] },
            timeout: .seconds(30), environment: ["DIR": directory, "END": Self.end])
        #expect(result.status == 0, "\(result.combined)")
        return try Self.answers(to: queries, in: result.stdout)
    }

    /// Each query's lines of `output`, where each answer ends with a line ``end``.
    static func answers(
        to queries: [[String]], in output: String, line: (Substring) -> String = { String($0) }
    )
        throws -> [[String]: [String]]
    {
        var answers = output.split(separator: "\n", omittingEmptySubsequences: false).split(
            omittingEmptySubsequences: false
        ) { $0 == end }
        .map { $0.filter { !$0.isEmpty }.map(line) }
        // The last element is what follows the last end line: nothing.
        if answers.count == queries.count + 1, answers.last?.isEmpty == true { answers.removeLast() }
        try #require(answers.count == queries.count, "\(queries.count) queries, answers: \(output)")
        return Dictionary(zip(queries, answers)) { first, _ in first }
    }

    @Test(.enabled(if: InteropTool.runnable("bash"), missing("bash")))
    func bashCompletesCommandsOptionsAndValues() async throws {
        let bash = try InteropTool.require("bash", package: "bash")
        try await withScript("bash") { script, directory in
            var queries: [[String]] = [["netclock", "q"], ["netclock", ""], ["netclock", "--v"]]
            for command in CLISpec.commands {
                queries.append(["netclock", command.name, "-"])
                for option in command.options where option.value != nil {
                    if let name = option.names.first { queries.append(["netclock", command.name, name, ""]) }
                }
            }
            queries += [
                ["netclock", "query", "--nts-mode", "p"], ["netclock", "sync", "--st"],
                ["netclock", "now", "--samp"],
                ["netclock", "watch", "--every", ""], ["netclock", "query", "--ca-file", "serv"],
                ["netclock", "query", "localh"], ["netclock", "completion", ""],
                ["netclock", "completion", "bash", ""],
            ]
            let offered = try bashCompletes(queries, bash: bash, script: script, in: directory)
            func complete(_ words: String...) throws -> [String] {
                try #require(offered[words], "\(words) was not asked")
            }
            #expect(try complete("netclock", "q") == ["query"])
            #expect(
                try complete("netclock", "") == CLISpec.commands.map(\.name) + ["-h", "--help", "--version"])
            #expect(try complete("netclock", "--v") == ["--version"])
            for command in CLISpec.commands {
                let expected = command.options.flatMap(\.names)
                #expect(try complete("netclock", command.name, "-") == expected, "\(command.name)")
                for option in command.options {
                    guard let value = option.value, let name = option.names.first else { continue }
                    let offered = try complete("netclock", command.name, name, "")
                    switch value.kind {
                    case .choices(let words): #expect(offered == words, "\(name)")
                    case .file: #expect(offered.contains("servers.json"), "\(name): \(offered)")
                    case .host: #expect(offered.contains("localhost"), "\(name): \(offered)")
                    case .number, .text, .url: #expect(offered.isEmpty, "\(name): \(offered)")
                    }
                }
            }
            #expect(try complete("netclock", "query", "--nts-mode", "p") == ["prefer"])
            #expect(try complete("netclock", "sync", "--st") == ["--state"])
            #expect(try complete("netclock", "now", "--samp").isEmpty)
            #expect(try complete("netclock", "watch", "--every", "").isEmpty)
            #expect(try complete("netclock", "query", "--ca-file", "serv") == ["servers.json"])
            #expect(try complete("netclock", "query", "localh").contains("localhost"))
            #expect(try complete("netclock", "completion", "") == CLISpec.shells)
            #expect(try complete("netclock", "completion", "bash", "").isEmpty)
        }
    }

    // MARK: zsh

    @Test(.enabled(if: InteropTool.runnable("zsh"), missing("zsh")))
    func zshParsesAndRegistersTheScript() async throws {
        let zsh = try InteropTool.require("zsh", package: "zsh")
        try await withScript("zsh") { script, directory in
            let parse = try InteropTool.run(zsh, ["-n", script], timeout: .seconds(30))
            #expect(parse.status == 0, "\(parse.combined)")
            // No dump file (`-D`): writing one, which registering does not need, took a third of
            // the time.
            let program = """
                autoload -U compinit && compinit -u -D && source "$1" && print -r -- $_comps[netclock]
                """
            let load = try InteropTool.run(zsh, ["-f", "-c", program, "zsh", script], timeout: .seconds(30))
            #expect(load.status == 0 && load.stdout == "_netclock\n", "\(load.combined)")
        }
    }

    // MARK: fish

    @Test(.enabled(if: InteropTool.runnable("fish"), missing("fish")))
    func fishCompletesCommandsOptionsAndValues() async throws {
        let fish = try InteropTool.require("fish", package: "fish")
        try await withScript("fish") { script, directory in
            let parse = try InteropTool.run(fish, ["--no-execute", script], timeout: .seconds(30))
            #expect(parse.status == 0, "\(parse.combined)")
            let lines =
                [
                    "netclock q", "netclock ", "netclock query --nts-m", "netclock query --nts-mode ",
                    "netclock watch --certificate-time ", "netclock sync --state serv",
                    "netclock completion ",
                ] + CLISpec.commands.map { "netclock \($0.name) --" }
            // Every line asked of one fish (one start instead of one per line), as an interactive
            // shell asks once per Tab.
            let result = try InteropTool.run(
                fish,
                [
                    "--no-config", "-c",
                    "source $argv[1]; or exit 9; cd $argv[2]; or exit 7; for line in $argv[3..-1]; complete -C $line; printf '%s\\n' $END; end",
                    script, directory,
                ] + lines,
                timeout: .seconds(30), environment: ["END": Self.end])
            #expect(result.status == 0, "\(result.combined)")
            // Without the descriptions.
            let offered = try Self.answers(to: lines.map { [$0] }, in: result.stdout) {
                String($0.prefix { $0 != "\t" })
            }
            /// What fish offers for `line`.
            func complete(_ line: String) throws -> [String] {
                try #require(offered[[line]], "\(line) was not asked")
            }
            #expect(try complete("netclock q") == ["query"])
            #expect(Set(try complete("netclock ")) == Set(CLISpec.commands.map(\.name)))
            #expect(try complete("netclock query --nts-m") == ["--nts-mode"])
            #expect(try complete("netclock query --nts-mode ") == ["mix", "prefer", "require"])
            #expect(try complete("netclock watch --certificate-time ") == ["auto", "wall-clock"])
            #expect(try complete("netclock sync --state serv") == ["servers.json"])
            #expect(try complete("netclock completion ") == CLISpec.shells.sorted())
            for command in CLISpec.commands {
                let long = command.options.flatMap(\.names).filter { $0.hasPrefix("--") }
                #expect(Set(try complete("netclock \(command.name) --")) == Set(long), "\(command.name)")
            }
        }
    }
}
