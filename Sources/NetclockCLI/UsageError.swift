import NetworkClock

/// A mistake in the command line: reported on stderr with the usage line, exit status 2.
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
