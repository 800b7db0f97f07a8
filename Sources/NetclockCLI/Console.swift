#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetworkClock

/// Where the CLI writes: standard output and standard error, replaceable in tests.
package struct Console: Sendable {
    /// Writes a line to standard output.
    package var out: @Sendable (String) -> Void
    /// Writes a line to standard error.
    package var err: @Sendable (String) -> Void
    /// Writes the live status line's bytes (as they are, no newline) to standard error; nil when
    /// standard error is not a terminal, so no status is shown.
    package var status: (@Sendable (String) -> Void)?

    /// Creates a console from two line writers and, optionally, a status line writer.
    package init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        status: (@Sendable (String) -> Void)? = nil
    ) {
        self.out = out
        self.err = err
        self.status = status
    }

    /// The process's standard output and error. Each line is written at once (unbuffered), so
    /// scripts reading a pipe see it immediately. The status line is shown only when standard
    /// error is a terminal.
    package static let standard = Console(
        out: { ProcessStreams.writeOutput($0 + "\n") },
        err: { ProcessStreams.writeError($0 + "\n") },
        status: standardErrorStatus)

    /// Writes raw status bytes to standard error when it is a terminal; nil otherwise.
    private static var standardErrorStatus: (@Sendable (String) -> Void)? {
        guard Terminal.standardErrorShowsStatus else { return nil }
        return { ProcessStreams.writeError($0) }
    }
}

/// What the CLI needs to know about standard error to show a live status line on it.
enum Terminal {
    /// Whether standard error is a terminal that understands `\r` and erase-line (not a pipe, a
    /// file, or `TERM=dumb`).
    static var standardErrorShowsStatus: Bool {
        ProcessStreams.errorIsTerminal && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// The width of the terminal on standard error in columns, when it reports one.
    static var standardErrorColumns: Int? {
        ProcessStreams.errorColumns
    }
}
