import Foundation
import Testing

@testable import NetclockCLI

/// The option table (``CLISpec``) is the one source of the command line: the parser accepts exactly
/// its options where it says, and help, the man page and CLIReference.md show every one.
struct OptionTableTests {
    /// The commands that parse options, with the groups they pass to the parser.
    static let optionCommands = CLISpec.commands.compactMap { command in
        command.optionGroups.map { (command, $0) }
    }

    /// A value each kind of option accepts.
    static func sample(_ value: CLIValue) -> String {
        switch value.kind {
        case .number: "1"
        case .text: "X-Time"
        case .url: "http://127.0.0.1/"
        case .file: "/tmp/netclock-option-table-test"
        case .host: "127.0.0.1"
        case .choices(let words): words.first ?? ""
        }
    }

    /// What some options need beside them to be valid at all.
    static let companions = [
        "--http-only": ["--http", "http://127.0.0.1/"],
        "--malfeasance-report": ["--roughtime", "/tmp/netclock-option-table-test"],
    ]

    @Test func everyNameIsUniqueAndLooksLikeAnOption() {
        let names = CLISpec.options.flatMap(\.names)
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.hasPrefix("-") && name.count > 1 && !name.contains(" "), "\(name)")
        }
        let commands = CLISpec.commands.map(\.name)
        #expect(Set(commands).count == commands.count)
        for option in CLISpec.options {
            #expect(!option.help.isEmpty && !option.summary.isEmpty, "\(option.names)")
        }
    }

    /// Each command's parser takes an option exactly when the table says the command accepts it,
    /// with a value exactly when the table gives it one.
    @Test(arguments: optionCommands.map(\.0.name))
    func theParserAcceptsWhatTheTableSays(command name: String) throws {
        let (command, groups) = try #require(Self.optionCommands.first { $0.0.name == name })
        for option in CLISpec.options where option.scope != .anywhere && option.scope != .topLevel {
            for flag in option.names {
                let arguments =
                    [flag] + (option.value.map { [Self.sample($0)] } ?? [])
                    + Self.companions[flag, default: []]
                if option.isAccepted(by: command) {
                    #expect(throws: Never.self, "\(name) \(arguments)") {
                        try QueryCommandOptions.parse(arguments, accepting: groups)
                    }
                    if option.value != nil {
                        #expect(throws: UsageError("\(flag) needs a value")) {
                            try QueryCommandOptions.parse([flag], accepting: groups)
                        }
                    }
                } else {
                    #expect(throws: UsageError("unknown option \(flag)"), "\(name) \(arguments)") {
                        try QueryCommandOptions.parse(arguments, accepting: groups)
                    }
                }
            }
        }
        #expect(throws: UsageError("unknown option --version")) {
            try QueryCommandOptions.parse(["--version"], accepting: groups)
        }
    }

    @Test func choicesAreTheParsersChoices() throws {
        for option in CLISpec.options {
            guard let value = option.value, !value.choices.isEmpty else { continue }
            for choice in value.choices {
                #expect(throws: Never.self) {
                    try QueryCommandOptions.parse([option.primaryName, choice], accepting: [.query])
                }
            }
            #expect(throws: UsageError.self) {
                try QueryCommandOptions.parse([option.primaryName, "bogus"], accepting: [.query])
            }
        }
    }

    @Test func helpShowsEveryCommandAndOption() {
        for command in CLISpec.commands {
            #expect(HelpText.full.contains("\n  \(command.name) "), "\(command.name)")
            #expect(HelpText.usage.contains("netclock \(command.name)"), "\(command.name)")
        }
        for option in CLISpec.options {
            #expect(HelpText.full.contains("\n  " + option.names.joined(separator: ", ")), "\(option.names)")
            for name in option.names where option.scope != .anywhere && option.scope != .topLevel {
                #expect(HelpText.usage.contains("[" + name) || HelpText.usage.contains("|" + name), "\(name)")
            }
        }
        for line in (HelpText.usage + "\n" + HelpText.full).split(separator: "\n") {
            #expect(line.count <= HelpText.width, "\(line)")
            #expect(line.last != " ", "trailing space: \(line)")
        }
    }

    /// The CLI contract in the DocC catalog documents every command and option the table has (the
    /// contract only grows: a row removed from the table fails nothing here, but its text stays).
    @Test func cliReferenceDocumentsEveryCommandAndOption() throws {
        let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/NetworkClock/NetworkClock.docc/CLIReference.md")
        let text = try String(contentsOf: reference, encoding: .utf8)
        let commands = CLISpec.commands.map(\.name).filter { !text.contains("netclock \($0)") }
        #expect(commands.isEmpty, "CLIReference.md lacks the commands \(commands)")
        let options = CLISpec.options.flatMap(\.names).filter { !text.contains("`\($0)") }
        #expect(options.isEmpty, "CLIReference.md lacks the options \(options)")
    }
}
