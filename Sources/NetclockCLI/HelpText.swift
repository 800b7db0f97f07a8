import NetworkClock

/// The CLI's help and version text, rendered from the option table (``CLISpec``); pinned by a test so
/// changes are deliberate.
package enum HelpText {
    /// The version printed by `--version`.
    package static let version = CLISpec.program + " " + CLISpec.version

    /// The line after a usage error's reason: where the help is.
    package static let seeHelp = "see '" + CLISpec.program + " --help'"

    /// The width help is wrapped to.
    static let width = 100

    /// The usage summary printed by `--help` and, on stderr, by `netclock` without a command: one
    /// line per command, each option of ``CLISpec/options`` it accepts in the table's order (`sync`
    /// and `watch` say `[same options]` for `query`'s).
    package static let usage: String = {
        let padded = CLISpec.commands.filter { $0.optionGroups != nil }.map(\.name.count).max() ?? 0
        var lines: [String] = []
        for command in CLISpec.commands {
            var words =
                command.foldsQueryOptions ? ["[same options]"] : command.operand.map { [$0.synopsis] } ?? []
            words += command.usageOptions.map(\.synopsis)
            let name = words.isEmpty ? command.name : command.name.padded(to: padded)
            let lead = (lines.isEmpty ? "usage: " : "       ") + CLISpec.program + " " + name
            lines += wrap(words, lead: lead + (words.isEmpty ? "" : " "), indent: lead.count + 1)
        }
        let global = CLISpec.options.filter { $0.scope == .anywhere || $0.scope == .topLevel }
        lines.append("       " + CLISpec.program + " " + global.map(\.primaryName).joined(separator: " | "))
        return lines.joined(separator: "\n")
    }()

    /// The full help: usage, commands, operands, options (the table's help texts) and exit statuses.
    package static let full: String = {
        let nameWidth = (CLISpec.commands.map(\.name.count).max() ?? 0) + 3
        var lines = [usage, "", "Commands:"]
        for command in CLISpec.commands {
            lines += wrap(
                words(command.summary), lead: "  " + command.name.padded(to: nameWidth),
                indent: 2 + nameWidth)
        }
        lines += ["", CLISpec.serverNote, "", "Options:"]
        // Help texts start in column 20; a label too long for that has a line of its own.
        let column = 20
        for option in CLISpec.options {
            let label =
                "  " + option.names.joined(separator: ", ") + (option.value.map { " " + $0.label } ?? "")
            if label.count >= column { lines.append(label) }
            let lead = label.count < column ? label.padded(to: column) : "".padded(to: column)
            lines += wrap(words(option.help), lead: lead, indent: column)
        }
        let statuses = CLISpec.exitStatuses.map { "\($0.status.rawValue) \($0.meaning)" }
        lines += ["", "Exit status: " + statuses.joined(separator: ", ") + "."]
        let check = CLISpec.checkExitStatuses.map { "\($0.status.rawValue) \($0.status)" }
        lines += wrap(
            words(
                "check: " + check.joined(separator: ", ") + " (Monitoring Plugins); `netclock check --help`."),
            lead: "", indent: 0)
        return lines.joined(separator: "\n")
    }()

    static func words(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }

    /// `words` after `lead`, greedily wrapped to ``width``, continuation lines indented by `indent`.
    static func wrap(_ words: [String], lead: String, indent: Int) -> [String] {
        var lines: [String] = []
        var line = lead
        var lineHasWords = false
        for word in words {
            if lineHasWords && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                lineHasWords = false
            }
            line += (lineHasWords ? " " : "") + word
            lineHasWords = true
        }
        lines.append(line)
        return lines
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    func padded(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
