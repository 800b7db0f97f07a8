/// The `netclock(1)` man page in mdoc(7), rendered from the option table (``CLISpec``): the same
/// commands, options and texts as `--help`. `netclock man` prints it; `Tools/install.sh` installs it.
package enum ManPage {
    /// The page's source.
    package static let text: String = {
        var lines = [
            ".Dd " + CLISpec.manualDate,
            ".Dt " + CLISpec.program.uppercased() + " 1",
            ".Os",
            ".Sh NAME",
            ".Nm " + CLISpec.program,
            ".Nd " + escaped(CLISpec.purpose),
            ".Sh SYNOPSIS",
        ]
        for command in CLISpec.commands {
            lines += [".Nm", ".Cm " + command.name]
            if let operand = command.operand { lines.append(operandMacro(operand)) }
            if command.foldsQueryOptions { lines.append(".Op Ar query-options") }
            lines += command.usageOptions.map { ".Op " + flags($0, separator: "|") }
        }
        for option in CLISpec.options where option.scope == .anywhere || option.scope == .topLevel {
            lines += [".Nm", ".Fl " + name(String(option.primaryName.dropFirst()))]
        }
        lines += [
            ".Sh DESCRIPTION",
            ".Nm",
            "measures how far this machine's clock is off and keeps a trusted time of its",
            "own, with an error bound that the true time lies within.",
            "Its commands are:",
            ".Bl -tag -width Ds",
        ]
        for command in CLISpec.commands {
            let operand = command.operand.map { " " + String(operandMacro($0).dropFirst()) } ?? ""
            lines += [".It Cm " + command.name + operand] + paragraph(command.summary)
        }
        lines += [".El", ".Pp"] + paragraph(CLISpec.serverNote)
        lines += [
            ".Pp",
            "Options follow the command;",
            ".Cm sync",
            "and",
            ".Cm watch",
            "take the servers and every option of",
            ".Cm query",
            ".Pq Ar query-options No in the synopsis .",
            "The options are as follows:",
            ".Bl -tag -width Ds",
        ]
        for option in CLISpec.options {
            lines += [".It " + flags(option, separator: ",")] + paragraph(option.help)
        }
        lines += [
            ".El",
            ".Sh ENVIRONMENT",
            ".Bl -tag -width Ds",
            ".It Ev XDG_CACHE_HOME",
            "The directory of the default anchor file when it is an absolute path, else",
            ".Pa ~/.cache .",
            ".El",
            ".Sh FILES",
            ".Bl -tag -width Ds",
            ".It Pa $XDG_CACHE_HOME/netclock/anchor.json",
            "The anchor",
            ".Cm sync",
            "stores and",
            ".Cm now",
            "reads",
            ".Pq Fl \\-state Ar FILE ;",
            "beside it",
            ".Pa FILE.nts ,",
            "NTS keys and cookies, and",
            ".Pa FILE.floor ,",
            "the time floor, and",
            ".Pa FILE.lock ,",
            "which concurrent runs take turns on to merge their results into the files.",
            ".El",
            ".Sh EXIT STATUS",
            ".Bl -tag -width Ds",
        ]
        for (status, meaning) in CLISpec.exitStatuses {
            lines += [".It \(status.rawValue)"] + paragraph(meaning)
        }
        lines += [".El", ".Pp", ".Cm check", "exits as a Monitoring Plugin does:", ".Bl -tag -width Ds"]
        for (status, meaning) in CLISpec.checkExitStatuses {
            lines += [".It \(status.rawValue)"] + paragraph(meaning)
        }
        lines += [
            ".El",
            ".Sh EXAMPLES",
            "Ask pool.ntp.org, then two NTS servers; store an anchor and read the trusted",
            "time from it without the network:",
            ".Bd -literal -offset indent",
            "netclock query",
            "netclock query \\-\\-nts time.cloudflare.com nts.netnod.se",
            "netclock sync && netclock now \\-\\-json",
            ".Ed",
            ".Pp",
            "Install the completion for bash:",
            ".Dl netclock completion bash > ~/.local/share/bash-completion/completions/netclock",
            ".Sh SEE ALSO",
            "The JSON keys, codes and every option in detail: CLIReference.md in the",
            "NetworkClock documentation.",
        ]
        return lines.joined(separator: "\n")
    }()

    /// `Fl --port Ar N`, `Fl 4 , Fl 6`, `Fl --nts-mode Ar MODE`.
    private static func flags(_ option: CLIOption, separator: String) -> String {
        // `Fl` writes the first hyphen itself.
        var text = option.names.map { "Fl " + name(String($0.dropFirst())) }.joined(
            separator: " \(separator) ")
        if let value = option.value {
            if let placeholder = value.placeholder {
                text += " Ar " + name(placeholder)
            } else {
                text += " Cm " + value.choices.map(name).joined(separator: " | Cm ")
            }
        }
        if option.repeatable { text += " No ..." }
        return text
    }

    /// `Op Ar SERVER ...`, `Cm bash | Cm zsh | Cm fish`.
    private static func operandMacro(_ operand: CLIOperand) -> String {
        var text: String
        if let placeholder = operand.value.placeholder {
            text = "Ar " + name(placeholder)
        } else {
            text = "Cm " + operand.value.choices.map(name).joined(separator: " | Cm ")
        }
        if operand.repeatable { text += " No ..." }
        return "." + (operand.required ? text : "Op " + text)
    }

    /// An option name or word on a macro line: every hyphen a literal minus, so that the page's
    /// options can be copied as they are shown.
    private static func name(_ word: String) -> String {
        word.replacingAll("-", with: "\\-")
    }

    /// Text for roff: escaped, one sentence per line, lines shorter than 80 bytes, none starting like
    /// a request.
    private static func paragraph(_ text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        let words = text.split(separator: " ")
        for (index, word) in words.enumerated() {
            current += (current.isEmpty ? "" : " ") + word
            let nextStartsSentence = index + 1 < words.count && words[index + 1].first?.isUppercase == true
            if word.hasSuffix(".") && nextStartsSentence {
                sentences.append(current)
                current = ""
            }
        }
        if !current.isEmpty { sentences.append(current) }
        return sentences.flatMap { lines(of: escaped($0)) }
    }

    /// A long line broken between words into lines shorter than 80 bytes (a longer word keeps its
    /// own line); roff fills them again.
    private static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.utf8.count + 1 + word.utf8.count > 79 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }
    }

    /// Text escaped for roff: backslashes and grave accents; hyphens stay as written.
    private static func escaped(_ line: String) -> String {
        line.replacingAll("\\", with: "\\e").replacingAll("`", with: "\\(ga")
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (without Foundation).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target {
                result += replacement
            } else {
                result.append(character)
            }
        }
        return result
    }
}
