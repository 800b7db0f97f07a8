import NetClockPlatform

/// The HTTP time server could not start: which system call failed and why.
package struct HTTPTimeServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The system call that failed, e.g. `bind`.
    package let operation: String
    /// Its errno (nil when the failure was not a system call's).
    package let errno: Errno?
    /// `strerror(errno)`.
    private let reason: String

    /// A failed system call while opening the server's sockets or starting its thread.
    init(_ error: TransportError) {
        if case .systemCall(let operation, let code, let reason) = error {
            (self.operation, self.errno, self.reason) = (operation, code, reason)
        } else {
            (self.operation, self.errno, self.reason) = ("start", nil, error.description)
        }
    }

    /// `operation: strerror(errno)`.
    package var description: String { "\(operation): \(reason)" }
}
