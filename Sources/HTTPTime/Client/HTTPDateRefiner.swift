import TimeValues

/// The logic of refining the time from server timestamps, without any I/O: it intersects the
/// interval each response gives (carried to the latest response by the local clock's frequency
/// tolerance, so that evidence from earlier requests stays sound) and says when to send the next
/// request so that it reaches the server just as the server's clock, per the current estimate,
/// crosses a whole second — the approach htpdate takes. Each such probe halves the interval, down
/// to about one round trip.
struct HTTPDateRefiner: Sendable {
    /// How fast the local monotonic clock may drift from true time, in parts per million.
    let frequencyTolerancePPM: Double
    /// Refining stops once the half-width is at most this.
    let targetHalfWidth: Duration

    /// The intersection so far, at the receive instant of the latest sample; nil before the first.
    private(set) var interval: TrueTimeInterval?
    /// The round-trip times seen so far.
    private(set) var roundTrips: [Duration] = []

    init(frequencyTolerancePPM: Double, targetHalfWidth: Duration) {
        self.frequencyTolerancePPM = FrequencyTolerance.valid(frequencyTolerancePPM)
        self.targetHalfWidth = targetHalfWidth
    }

    /// Whether the interval is already narrow enough.
    var isPrecise: Bool { interval.map { $0.radius <= targetHalfWidth } ?? false }

    /// The mean round trip so far (zero before the first sample).
    var expectedRoundTrip: Duration {
        roundTrips.isEmpty ? .zero : roundTrips.reduce(.zero, +) / roundTrips.count
    }

    /// Adds the interval one response gave (sent at `sent`, received at `received`, at whose
    /// instant `fresh` holds) and returns the new intersection, or nil when the evidence is
    /// inconsistent (the intervals are disjoint), in which case the state is left unchanged.
    mutating func add(_ fresh: TrueTimeInterval, sent: MonotonicInstant, received: MonotonicInstant)
        -> TrueTimeInterval?
    {
        let combined: TrueTimeInterval?
        if let interval {
            let instant = max(fresh.instant, interval.instant)
            combined = interval.aged(to: instant, tolerancePPM: frequencyTolerancePPM)
                .intersection(fresh.aged(to: instant, tolerancePPM: frequencyTolerancePPM))
        } else {
            combined = fresh
        }
        guard let combined else { return nil }
        interval = combined
        roundTrips.append(max(.zero, received - sent))
        return combined
    }

    /// The instant, no earlier than `earliest`, at which to send the next request so that, per the
    /// current midpoint and the expected round trip, it reaches the server as the server's clock
    /// crosses a whole second. Nil before the first sample.
    func nextSendInstant(after earliest: MonotonicInstant) -> MonotonicInstant? {
        guard let interval else { return nil }
        let serverTimeAtArrival = interval.midpoint + (earliest - interval.instant) + expectedRoundTrip / 2
        let next = UnixTime(seconds: serverTimeAtArrival.seconds + 1)
        let wait = next - serverTimeAtArrival
        // `wait` is in (0, 1 s]; a whole second means the boundary is exactly now.
        return earliest + (wait == .seconds(1) ? .zero : wait)
    }
}
