import NetClockPlatform
import SNTP

/// The logic of refining a clock offset from server timestamps, without any I/O: it intersects the
/// interval each response gives (aged by the local clock's frequency tolerance so that evidence from
/// earlier requests stays sound) and says when to send the next request so that it reaches the
/// server just as the server's clock, per the current estimate, crosses a whole second — the
/// approach htpdate takes. Each such probe halves the interval, down to about one round trip.
struct HTTPDateRefiner: Sendable {
    /// How fast the local monotonic clock may drift from true time, in parts per million.
    let frequencyTolerancePPM: Double
    /// Refining stops once the half-width is at most this.
    let targetHalfWidth: Duration

    /// The intersection so far, valid at ``asOf``; nil before the first sample.
    private(set) var interval: OffsetInterval?
    /// The instant the interval refers to: the receive instant of the latest sample.
    private(set) var asOf: MonotonicInstant?
    /// The round-trip times seen so far.
    private(set) var roundTrips: [Duration] = []

    init(frequencyTolerancePPM: Double, targetHalfWidth: Duration) {
        self.frequencyTolerancePPM = QueryOptions.validTolerance(frequencyTolerancePPM)
        self.targetHalfWidth = targetHalfWidth
    }

    /// Whether the interval is already narrow enough.
    var isPrecise: Bool { interval.map { $0.bound <= targetHalfWidth } ?? false }

    /// The mean round trip so far (zero before the first sample).
    var expectedRoundTrip: Duration {
        roundTrips.isEmpty ? .zero : roundTrips.reduce(.zero, +) / roundTrips.count
    }

    /// Adds the interval one response gave (sent at `sent`, received at `received`) and returns the
    /// new intersection, or nil when the evidence is inconsistent (the intervals are disjoint), in
    /// which case the state is left unchanged.
    mutating func add(_ sample: OffsetInterval, sent: MonotonicInstant, received: MonotonicInstant)
        -> OffsetInterval?
    {
        let fresh = sample.widened(by: (received - sent).drift(atPPM: frequencyTolerancePPM))
        let combined: OffsetInterval?
        if let interval, let asOf {
            combined = interval.widened(by: (received - asOf).drift(atPPM: frequencyTolerancePPM)).intersection(fresh)
        } else {
            combined = fresh
        }
        guard let combined else { return nil }
        interval = combined
        asOf = max(received, asOf ?? received)
        roundTrips.append(max(.zero, received - sent))
        return combined
    }

    /// The instant, no earlier than `earliest`, at which to send the next request so that, per the
    /// current midpoint and the expected round trip, it reaches the server as the server's clock
    /// crosses a whole second. Nil before the first sample.
    func nextSendInstant(after earliest: MonotonicInstant, mapping: TimeMapping) -> MonotonicInstant? {
        guard let interval else { return nil }
        let serverTimeAtArrival = mapping.wallTime(at: earliest) + interval.offset + expectedRoundTrip / 2
        let next = UnixTime(seconds: serverTimeAtArrival.seconds + 1)
        let wait = next - serverTimeAtArrival
        // `wait` is in (0, 1 s]; a whole second means the boundary is exactly now.
        return earliest + (wait == .seconds(1) ? .zero : wait)
    }
}
