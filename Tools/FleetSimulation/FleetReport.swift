/// What a fleet run measured, scaled to a million clients: for each policy, the queries per second
/// the time servers see (the busiest bin, and the mean), the requests per client and day, and what
/// fraction of the app's `now()` calls read a time within the need.
package struct FleetReport: Sendable {
    /// One policy's figures over one day, or over all days.
    package struct Figures: Sendable, Hashable {
        /// Queries per second in the busiest bin, per million clients.
        package var peakQPSPerMillion: Double
        /// Queries per second on average, per million clients.
        package var meanQPSPerMillion: Double
        /// Requests per client and day.
        package var packetsPerClientDay: Double
        /// Fraction of `now()` calls within the need (a call without time is outside).
        package var withinNeed: Double
        /// Fraction of `now()` calls whose true error was within the need.
        package var errorWithinNeed: Double
        /// Fraction of `now()` calls that read no time.
        package var withoutTime: Double
        /// Syncs per client and day.
        package var syncsPerClientDay: Double
        /// Requests per client and day, by why they were sent.
        package var packetsByReason: [String: Double]
        /// Queries per second per million clients in the minute of the synchronised spike (the
        /// bin it starts in), by why they were sent; the mean over the days.
        package var spikeQPSByReason: [String: Double]
    }

    /// The simulation that was run.
    package var simulation: FleetSimulation
    /// Each policy's tally, in ``FleetSimulation/policyNames`` order.
    package var tallies: [(name: String, tally: PolicyTally)]

    /// A report of `tallies` from `simulation`.
    package init(simulation: FleetSimulation, tallies: [(name: String, tally: PolicyTally)]) {
        self.simulation = simulation
        self.tallies = tallies
    }

    /// Clients per million: what a count over the sample is multiplied by.
    package var scale: Double { 1e6 / Double(max(simulation.clients, 1)) }

    /// `policy`'s figures over day `day` (0-based), or over every day when nil.
    package func figures(of policy: String, day: Int? = nil) -> Figures? {
        guard let tally = tallies.first(where: { $0.name == policy })?.tally else { return nil }
        let days = day.map { [$0] } ?? Array(tally.requests.indices)
        let width = simulation.model.binWidth
        let bins = days.flatMap { tally.requests[$0] }
        let total = Double(bins.reduce(0, +))
        let seconds = Double(days.count) * FleetModel.day
        let clientDays = Double(simulation.clients * days.count)
        let calls = Double(days.map { tally.nowCalls[$0] }.reduce(0, +))
        func fraction(_ counts: [Int]) -> Double {
            calls > 0 ? Double(days.map { counts[$0] }.reduce(0, +)) / calls : 0
        }
        var reasons: [String: Double] = [:]
        var spike: [String: Double] = [:]
        let spikeScale = scale / width / Double(days.count)
        for day in days {
            for (reason, count) in tally.reasons[day] {
                reasons[reason, default: 0] += Double(count) / clientDays
            }
            for (reason, count) in tally.spikeReasons[day] {
                spike[reason, default: 0] += Double(count) * spikeScale
            }
        }
        return Figures(
            peakQPSPerMillion: Double(bins.max() ?? 0) / width * scale,
            meanQPSPerMillion: total / seconds * scale,
            packetsPerClientDay: total / clientDays,
            withinNeed: fraction(tally.withinNeed),
            errorWithinNeed: fraction(tally.errorWithinNeed),
            withoutTime: fraction(tally.withoutTime),
            syncsPerClientDay: Double(days.map { tally.syncs[$0] }.reduce(0, +)) / clientDays,
            packetsByReason: reasons, spikeQPSByReason: spike)
    }

    /// `policy`'s queries per second per million clients in each bin, over every day.
    package func series(of policy: String) -> [Double] {
        guard let tally = tallies.first(where: { $0.name == policy })?.tally else { return [] }
        return tally.requests.flatMap { $0 }.map { Double($0) / simulation.model.binWidth * scale }
    }

    /// The tally of `policy`.
    package func tally(of policy: String) -> PolicyTally? {
        tallies.first { $0.name == policy }?.tally
    }
}
