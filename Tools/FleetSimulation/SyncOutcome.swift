/// What one sync of a policy gives: `addresses × samples` requests, each with a round trip uniform
/// in the model's range; the time it learns is off by a quarter of the best round trip at most
/// (half the worst-case asymmetry), and its bound is half the best round trip plus the server's
/// dispersion, so the interval always holds the truth. Every request is answered.
package struct SyncOutcome: Sendable, Hashable {
    /// A time learnt before the round is over.
    package struct Provisional: Sendable, Hashable {
        /// When, in seconds after the sync starts.
        package var time: Double
        /// Its error (learnt − true), in seconds.
        package var error: Double
        /// Its bound, in seconds.
        package var bound: Double
    }

    /// The requests sent: when, in seconds after the sync starts.
    package var requests: [Double]
    /// The error of the time learnt (learnt − true), in seconds.
    package var error: Double
    /// The bound a bounded clock gets, in seconds.
    package var bound: Double
    /// When the first reply is in (a clock that takes the first answer has time then).
    package var firstReply: Double
    /// When the sync is over (a clock that waits for the whole round has time then).
    package var duration: Double
    /// The library's provisional answer: once the first replies of a strict majority of the
    /// addresses are in, before the round is over (nil when that is its end), from those replies.
    package var provisional: Provisional?

    /// Draws a sync of `addresses` in parallel, each sent `samples` requests `spacing` seconds
    /// apart; with `endsWithin` (seconds), the round ends as soon as its provisional answer's bound
    /// is within it (the library's clock with a need, at half of it), and sends no more.
    package init(
        addresses: Int, samples: Int, spacing: Double, model: FleetModel, endsWithin: Double? = nil,
        random: inout FleetRandom
    ) {
        var best = Double.infinity
        var last = 0.0
        var firstReplies: [Double] = []
        requests = []
        for _ in 0..<max(addresses, 1) {
            for sample in 0..<max(samples, 1) {
                let sent = Double(sample) * spacing
                let roundTrip = random.uniform(
                    model.roundTrip - model.roundTripSpread, model.roundTrip + model.roundTripSpread)
                requests.append(sent)
                best = min(best, roundTrip)
                if sample == 0 { firstReplies.append(roundTrip) }
                last = max(last, sent + roundTrip)
            }
        }
        error = random.uniform(-best / 4, best / 4)
        bound = best / 2 + model.dispersion
        firstReply = firstReplies.min() ?? last
        duration = last
        let majority = firstReplies.sorted().prefix(firstReplies.count / 2 + 1)
        if let time = majority.last, time < duration, let fastest = majority.first {
            provisional = Provisional(
                time: time, error: random.uniform(-fastest / 4, fastest / 4),
                bound: fastest / 2 + model.dispersion)
        }
        if let endsWithin, let early = provisional, early.bound <= endsWithin {
            // Only the requests sent before the provisional answer went out.
            requests = requests.filter { $0 <= early.time }
            (error, bound, duration, provisional) = (early.error, early.bound, early.time, nil)
        }
    }
}
