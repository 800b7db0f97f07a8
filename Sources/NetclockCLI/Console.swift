import Foundation

/// Where the CLI writes: standard output and standard error, replaceable in tests.
package struct Console: Sendable {
    /// Writes a line to standard output.
    package var out: @Sendable (String) -> Void
    /// Writes a line to standard error.
    package var err: @Sendable (String) -> Void

    /// Creates a console from two line writers.
    package init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output and error. Each line is written at once (unbuffered), so
    /// scripts reading a pipe see it immediately.
    package static let standard = Console(
        out: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) },
        err: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
}
