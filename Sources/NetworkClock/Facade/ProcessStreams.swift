import NetClockPlatform

/// The process's standard output and error, as the command line writes them: each write is one
/// unbuffered `write(2)`, so a script reading a pipe sees a line at once.
package enum ProcessStreams {
    /// Writes `text` to standard output as it is.
    package static func writeOutput(_ text: String) { Syscalls.write(text, to: .output) }

    /// Writes `text` to standard error as it is.
    package static func writeError(_ text: String) { Syscalls.write(text, to: .error) }

    /// Whether standard error is a terminal (not a pipe or a file).
    package static var errorIsTerminal: Bool { Syscalls.isTerminal(.error) }

    /// The width in columns of the terminal on standard error, when it reports one.
    package static var errorColumns: Int? { Syscalls.terminalColumns(of: .error) }
}
