import NetworkClock

/// The `netclock` command line: parses arguments, runs a command, returns the exit status.
package enum Netclock {
    /// Runs the CLI with `arguments` (without the program name); returns the process exit status:
    /// an ``ExitStatus``, or for `check` a ``PluginStatus``.
    package static func run(_ arguments: [String], console: Console = .standard) async -> Int32 {
        if arguments.first == "check" {
            return await check(Array(arguments.dropFirst()), console: console).rawValue
        }
        return await run(command: arguments, console: console).rawValue
    }

    /// `check`: its own help, and usage errors as UNKNOWN (the Monitoring Plugins' rule), with a
    /// status line for the monitoring system and the reason on stderr.
    private static func check(_ arguments: [String], console: Console) async -> PluginStatus {
        if arguments.contains("--help") || arguments.contains("-h") {
            console.out(CheckHelp.text)
            return .ok
        }
        do throws(UsageError) {
            let options = try QueryCommandOptions.parse(arguments, accepting: [.query, .state, .check])
                .validatedForCheck()
            return await CheckCommand(options: options, console: console).run()
        } catch {
            console.out("NETCLOCK UNKNOWN - usage: \(error.message)")
            console.err("netclock: \(error.message)")
            console.err("see 'netclock check --help'")
            return .unknown
        }
    }

    /// The commands that need no concurrency (`now`, `--version`, the help), run on the calling
    /// thread, so that they start no executor thread and no task; nil for every other command
    /// (``run(_:console:)`` runs those, and these too).
    package static func runSynchronously(_ arguments: [String], console: Console = .standard) -> Int32? {
        guard let command = arguments.first, command != "check" else { return nil }
        let rest = Array(arguments.dropFirst())
        if isHelp(command, rest) {
            console.out(HelpText.full)
            return ExitStatus.success.rawValue
        }
        switch command {
        case "--version":
            console.out(HelpText.version)
            return ExitStatus.success.rawValue
        case "now":
            do throws(UsageError) {
                let options = try QueryCommandOptions.parse(rest, accepting: [.state])
                return NowCommand(options: options, console: console).run().rawValue
            } catch {
                return usageFailure(error, console: console).rawValue
            }
        default:
            return nil
        }
    }

    /// Whether the command line asks for the help.
    private static func isHelp(_ command: String, _ rest: [String]) -> Bool {
        rest.contains("--help") || rest.contains("-h") || command == "--help" || command == "-h"
            || command == "help"
    }

    /// Reports a usage error: the reason and where help is, as git, curl and the Monitoring
    /// Plugins do (the whole usage block would bury the reason).
    private static func usageFailure(_ error: UsageError, console: Console) -> ExitStatus {
        console.err("netclock: \(error.message)")
        console.err(HelpText.seeHelp)
        return .usage
    }

    /// Every command but `check`.
    private static func run(command arguments: [String], console: Console) async -> ExitStatus {
        guard let command = arguments.first else {
            console.err(HelpText.usage)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        if isHelp(command, rest) {
            console.out(HelpText.full)
            return .success
        }
        if command == "--version" {
            console.out(HelpText.version)
            return .success
        }
        do throws(UsageError) {
            switch command {
            case "query":
                let options = try QueryCommandOptions.parse(rest, accepting: [.query])
                return await QueryCommand(options: options, console: console).run()
            case "sync":
                let options = try QueryCommandOptions.parse(rest, accepting: [.query, .state])
                return await SyncCommand(options: options, console: console).run()
            case "set":
                let options = try QueryCommandOptions.parse(rest, accepting: [.query, .state, .set])
                return await SyncCommand(options: options, console: console).run(settingSystemClock: true)
            case "now":
                let options = try QueryCommandOptions.parse(rest, accepting: [.state])
                return NowCommand(options: options, console: console).run()
            case "watch":
                let options = try QueryCommandOptions.parse(rest, accepting: [.query, .watch])
                return await WatchCommand(options: options, console: console).run()
            case "completion":
                guard rest.count == 1, let script = CompletionScript.script(for: rest[0]) else {
                    throw UsageError("completion needs one shell: \(CLISpec.shells.joined(separator: ", "))")
                }
                console.out(script)
                return .success
            case "man":
                if let argument = rest.first { throw UsageError("unexpected argument \(argument)") }
                console.out(ManPage.text)
                return .success
            default:
                throw UsageError("unknown command '\(command)'")
            }
        } catch {
            return usageFailure(error, console: console)
        }
    }
}

/// A mistake in the command line: reported on stderr as one line, then ``HelpText/seeHelp``;
/// exit status 2.
package struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    package var message: String

    /// Creates a usage error.
    package init(_ message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

/// The process exit statuses of the CLI contract.
package enum ExitStatus: Int32, Sendable {
    /// Success.
    case success = 0
    /// No usable time source (timeout, refused, every reply rejected, no majority, no anchor).
    case noTime = 1
    /// A usage error.
    case usage = 2
}
