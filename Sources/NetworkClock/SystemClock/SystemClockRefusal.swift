import NetClockPlatform

extension NetworkClock {
    /// Why the system clock was not corrected: a stable ``code`` for programs and a ``reason`` for
    /// people. `netclock set` exits 1 with it; the sync's anchor and floor are kept all the same.
    public struct SystemClockRefusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier for a kind of refusal. New codes may be added.
        public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The identifier, e.g. `before_floor`.
            public let rawValue: String

            /// Creates a code from its identifier.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// The identifier.
            public var description: String { rawValue }

            /// The corrected clock would read a time before the time floor, which authenticated time
            /// proved already passed.
            public static let beforeFloor = Code(rawValue: "before_floor")
            /// Unauthenticated time asked for a correction larger than
            /// ``SystemClockPolicy/maximumUnauthenticatedCorrection``.
            public static let unauthenticatedCorrectionTooLarge = Code(
                rawValue: "unauthenticated_correction_too_large")
            /// The trusted bound is more than half the correction: the corrected clock could end up no
            /// closer to true time than it was.
            public static let boundTooWide = Code(rawValue: "bound_too_wide")
            /// Another time daemon disciplines the clock (two disciplines fight); `--force` overrides.
            public static let otherTimeDaemon = Code(rawValue: "other_time_daemon")
            /// The kernel refused the change (`EPERM`): the process lacks `CAP_SYS_TIME`.
            public static let notPermitted = Code(rawValue: "not_permitted")
            /// The kernel refused the change for another reason (its errno is in the reason).
            public static let setFailed = Code(rawValue: "set_failed")
        }

        /// The kind of refusal.
        public let code: Code
        /// What was refused and why, for people.
        public let reason: String

        /// Creates a refusal.
        public init(_ code: Code, _ reason: String) {
            self.code = code
            self.reason = reason
        }

        /// `code: reason`.
        public var description: String { "\(code): \(reason)" }

        /// Equal when the codes are.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

        /// Hashes the code.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    }
}

/// The public code is one of the package's `ErrorCode`s (NetClockPlatform), like every other.
extension NetworkClock.SystemClockRefusal.Code: ErrorCode {}
