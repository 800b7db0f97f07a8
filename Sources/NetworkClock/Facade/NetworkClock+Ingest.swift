import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

extension NetworkClock {
    /// Why ``NetworkClock/ingest(serverTime:requestSent:responseReceived:resolution:server:)`` refused
    /// its input: a stable ``code`` for programs and a ``reason`` for people. Nothing changes then.
    public struct IngestError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A stable identifier for a kind of refusal.
        public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The identifier, e.g. `round_trip_too_long`.
            public let rawValue: String

            /// Creates a code from its identifier.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// The identifier.
            public var description: String { rawValue }

            /// The response was received before the request was sent.
            public static let responseBeforeRequest = Code(rawValue: "response_before_request")
            /// The round trip is longer than a minute: the bound would be too loose to be worth
            /// anything.
            public static let roundTripTooLong = Code(rawValue: "round_trip_too_long")
            /// The resolution is negative or over a minute.
            public static let invalidResolution = Code(rawValue: "invalid_resolution")
            /// The whole interval the response proves lies before the time floor
            /// (``NetworkClock/timeFloor``): the server's clock is behind what authenticated time
            /// once proved.
            public static let beforeTimeFloor = Code(rawValue: "before_time_floor")
        }

        /// The kind of refusal.
        public let code: Code
        /// What was wrong with the input, for people.
        public let reason: String

        /// The reason.
        public var description: String { reason }

        /// Errors are equal when their codes are.
        public static func == (lhs: IngestError, rhs: IngestError) -> Bool { lhs.code == rhs.code }

        /// Hashes the code.
        public func hash(into hasher: inout Hasher) { hasher.combine(code) }

        /// The response was received before the request was sent.
        static var responseBeforeRequest: IngestError {
            IngestError(
                code: .responseBeforeRequest, reason: "the response was received before the request was sent")
        }

        /// The round trip `roundTrip` is longer than a minute.
        static func roundTripTooLong(_ roundTrip: Duration) -> IngestError {
            IngestError(
                code: .roundTripTooLong,
                reason: "round trip \(roundTrip.formattedSeconds) is longer than 60 s")
        }

        /// The resolution is negative or over a minute.
        static func invalidResolution(_ resolution: Duration) -> IngestError {
            IngestError(code: .invalidResolution, reason: "invalid resolution \(resolution.formattedSeconds)")
        }

        /// The response was ruled out by the time floor, for `reason`.
        static func beforeTimeFloor(_ reason: String) -> IngestError {
            IngestError(code: .beforeTimeFloor, reason: reason)
        }
    }
}

extension NetworkClock {
    /// The monotonic instant now, on the clock that ``ingest(serverTime:requestSent:responseReceived:resolution:server:)``
    /// expects: read it just before sending a request and just after its response arrives.
    public func monotonicNow() -> MonotonicInstant {
        clock.monotonic.now()
    }

    /// Feeds the server time carried by one of the app's own HTTP responses into the clock.
    ///
    /// The server read its clock somewhere between `requestSent` and `responseReceived`, and
    /// reported it to `resolution` (1 s for a `Date` header, 1 ms for a millisecond timestamp
    /// header), truncated, rounded or ceiled: its clock read within `serverTime ± resolution`. So
    /// the true time when the response arrived lies in that range widened by the round trip (and
    /// the local clock's possible drift over it): the one rule the HTTP(S) fallback's own timestamp
    /// headers follow. That evidence is screened as a
    /// sync's sources are (an interval wholly before the ``timeFloor`` is refused), then intersected
    /// with the current anchor's, aged to the same instant: the bound only tightens, and an interval
    /// that does not overlap replaces the anchor with a ``ClockEvent/anchorDiscontinuity(by:)``
    /// event.
    ///
    /// From a `URLSession` completion handler:
    ///
    /// ```swift
    /// let sent = clock.monotonicNow()
    /// let (_, response) = try await session.data(for: request)
    /// let received = clock.monotonicNow()
    /// if let http = response as? HTTPURLResponse,
    ///    let value = http.value(forHTTPHeaderField: "X-Server-Time-Ms"), let ms = Int64(value) {
    ///     try clock.ingest(serverTime: UnixTime(seconds: ms / 1000, nanoseconds: (ms % 1000) * 1_000_000),
    ///                      requestSent: sent, responseReceived: received, resolution: .milliseconds(1))
    /// }
    /// ```
    ///
    /// A replaced anchor is written to the configured store in the background (never on the
    /// caller's thread); a failed write is reported as ``ClockEvent/storeFailed(_:)``.
    ///
    /// - Returns: whether the clock's anchor was replaced (adopted, narrowed by intersection, or
    ///   replaced after a discontinuity).
    /// - Throws: ``IngestError`` for inconsistent input; nothing changes then.
    @discardableResult
    public func ingest(
        serverTime: UnixTime, requestSent: MonotonicInstant, responseReceived: MonotonicInstant,
        resolution: Duration = .milliseconds(1), server: String? = nil
    ) throws(IngestError) -> Bool {
        let roundTrip = responseReceived - requestSent
        guard roundTrip >= .zero else { throw .responseBeforeRequest }
        guard roundTrip <= .seconds(60) else { throw .roundTripTooLong(roundTrip) }
        guard resolution >= .zero, resolution <= .seconds(60) else { throw .invalidResolution(resolution) }
        var candidate = Candidate(
            index: 0, name: server ?? "ingested response", kind: .http,
            interval: TrueTimeInterval(
                serverTimestamp: serverTime, resolution: resolution, sent: requestSent,
                received: responseReceived,
                tolerancePPM: configuration.clock.frequencyTolerancePPM),
            delay: roundTrip, isAuthenticated: false, certificates: [])
        if let floor = timeFloor {
            let screen = TimeFloorScreen(floor: floor)
            if let rejection = screen.rejections(among: [candidate])[0] {
                throw .beforeTimeFloor("the response \(rejection.reason)")
            }
            candidate = screen.narrowed(candidate)
        }
        let (time, bound) = candidate.interval.pointEstimate
        let anchor = Anchor(
            trueTime: time, monotonic: candidate.interval.instant, errorBound: bound, source: .http,
            server: server)
        let frequencyBefore = clock.frequency()
        let update = clock.offer(anchor)
        let replaced = update.replacedAnchor
        if case .discontinuous(let step) = update { emit(.anchorDiscontinuity(by: step)) }
        if let reset = clock.frequencyReset(since: frequencyBefore) { emit(.frequencyReset(reset)) }
        // Persisted on the blocking pool: this method may be called from async code, which must
        // not wait on file I/O. A failed write is reported as a `storeFailed` event.
        if replaced { persister?.requestWrite() }
        return replaced
    }
}

/// The public code is one of the package's `ErrorCode`s (NetClockPlatform), like every other.
extension NetworkClock.IngestError.Code: ErrorCode {}
