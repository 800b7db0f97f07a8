import NetClockPlatform

extension FakeNTPServer {
    /// Why a fake server could not start.
    package struct StartError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The kind of failure, stable for tests to compare.
        package enum Code: Hashable, Sendable {
            /// The host is not a numeric IPv4 or IPv6 address.
            case invalidHost
            /// The host is not a loopback address; the fake server only ever listens on loopback.
            case notLoopback
            /// A system call failed (`socket`, `bind`, `getsockname`, `socketpair` or
            /// `pthread_create`); ``systemError`` has the errno.
            case systemCallFailed
        }

        /// The kind of failure.
        package var code: Code
        /// A readable explanation naming the operation that failed.
        package var reason: String
        /// The errno for ``Code/systemCallFailed``, otherwise nil.
        package var systemError: Errno?

        /// Creates an error.
        package init(_ code: Code, _ reason: String, systemError: Errno? = nil) {
            self.code = code
            self.reason = reason
            self.systemError = systemError
        }

        /// The reason.
        package var description: String { reason }

        /// A failed system call while opening the server's sockets or starting its thread.
        init(_ error: TransportError) {
            if case .systemCall(let operation, let code, let reason) = error {
                self.init(.systemCallFailed, "\(operation): \(reason)", systemError: code)
            } else {
                self.init(.systemCallFailed, error.description)
            }
        }
    }
}
