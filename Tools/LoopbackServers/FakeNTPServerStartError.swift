extension FakeNTPServer {
    /// Why a fake server could not start.
    public struct StartError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The kind of failure, stable for tests to compare.
        public enum Code: Hashable, Sendable {
            /// The host is not a numeric IPv4 or IPv6 address.
            case invalidHost
            /// The host is not a loopback address; the fake server only ever listens on loopback.
            case notLoopback
            /// A system call failed (`socket`, `bind`, `getsockname`, `socketpair` or
            /// `pthread_create`); ``systemError`` has the errno.
            case systemCallFailed
        }

        /// The kind of failure.
        public var code: Code
        /// A readable explanation naming the operation that failed.
        public var reason: String
        /// The errno value for ``Code/systemCallFailed``, otherwise 0.
        public var systemError: Int32

        /// Creates an error.
        public init(_ code: Code, _ reason: String, systemError: Int32 = 0) {
            self.code = code
            self.reason = reason
            self.systemError = systemError
        }

        /// The reason.
        public var description: String { reason }
    }
}
