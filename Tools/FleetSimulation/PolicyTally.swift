/// What one policy did over the clients simulated: the requests it sent, binned over each day, and
/// what the app's `now()` calls read. Tallies of different clients add up.
package struct PolicyTally: Sendable, Hashable {
    /// Requests per bin of each day.
    package var requests: [[Int]]
    /// Syncs started each day.
    package var syncs: [Int]
    /// Requests each day by why they were sent (e.g. `launch`, `scheduled`).
    package var reasons: [[String: Int]]
    /// The bin of the synchronised spike's start.
    package var spikeBin: Int
    /// Requests in that bin each day, by why they were sent.
    package var spikeReasons: [[String: Int]]
    /// `now()` calls each day.
    package var nowCalls: [Int]
    /// Calls that read a time within the need: its bound within it for a clock with a bound, its
    /// error within it for a clock without.
    package var withinNeed: [Int]
    /// Calls whose time's true error was within the need.
    package var errorWithinNeed: [Int]
    /// Calls that read no time at all.
    package var withoutTime: [Int]
    /// Readings whose true error was checked against their bound.
    package var boundChecks = 0
    /// Readings whose true error exceeded their bound (the library's promise broken).
    package var boundViolations = 0

    /// An empty tally for `days` days of `bins` bins each; `spikeBin` is the bin whose requests
    /// are also counted by reason.
    package init(days: Int, bins: Int, spikeBin: Int) {
        requests = Array(repeating: Array(repeating: 0, count: bins), count: days)
        syncs = Array(repeating: 0, count: days)
        reasons = Array(repeating: [:], count: days)
        self.spikeBin = spikeBin
        spikeReasons = reasons
        nowCalls = Array(repeating: 0, count: days)
        withinNeed = nowCalls
        errorWithinNeed = nowCalls
        withoutTime = nowCalls
    }

    /// Counts `count` requests sent at `time` (seconds since the start) for `reason`; requests
    /// after the last day are not counted.
    package mutating func send(_ count: Int, at time: Double, binWidth: Double, reason: String) {
        let day = Int((time / FleetModel.day).rounded(.down))
        guard day >= 0, day < requests.count, count > 0 else { return }
        let bin = min(Int((time - Double(day) * FleetModel.day) / binWidth), requests[day].count - 1)
        requests[day][bin] += count
        reasons[day][reason, default: 0] += count
        if bin == spikeBin { spikeReasons[day][reason, default: 0] += count }
    }

    /// Counts a sync started at `time`.
    package mutating func countSync(at time: Double) {
        let day = Int((time / FleetModel.day).rounded(.down))
        guard day >= 0, day < syncs.count else { return }
        syncs[day] += 1
    }

    /// Adds `other`'s counts to this tally's.
    package mutating func add(_ other: PolicyTally) {
        for day in requests.indices {
            for bin in requests[day].indices { requests[day][bin] += other.requests[day][bin] }
            syncs[day] += other.syncs[day]
            reasons[day].merge(other.reasons[day], uniquingKeysWith: +)
            spikeReasons[day].merge(other.spikeReasons[day], uniquingKeysWith: +)
            nowCalls[day] += other.nowCalls[day]
            withinNeed[day] += other.withinNeed[day]
            errorWithinNeed[day] += other.errorWithinNeed[day]
            withoutTime[day] += other.withoutTime[day]
        }
        boundChecks += other.boundChecks
        boundViolations += other.boundViolations
    }
}
