/// Issue 43's targets for the `demand` policy, judged on a report over every day simulated: at
/// least 100 times gentler than `lifecycle` at the peak, at most 24 requests per client and day, and
/// at least 99 % of `now()` calls within the need.
package struct DemandVerdict: Sendable, Hashable {
    /// `lifecycle`'s peak over `demand`'s.
    package var peakRatio: Double
    /// `demand`'s requests per client and day.
    package var packetsPerClientDay: Double
    /// `demand`'s fraction of `now()` calls within the need.
    package var withinNeed: Double

    /// The peak ratio required.
    package static let requiredPeakRatio = 100.0
    /// The most requests per client and day allowed.
    package static let allowedPackets = 24.0
    /// The fraction within the need required.
    package static let requiredWithinNeed = 0.99

    /// The verdict on `report` over its days (`day` nil) or over one day.
    package init?(_ report: FleetReport, day: Int? = nil) {
        guard let lifecycle = report.figures(of: "lifecycle", day: day),
            let demand = report.figures(of: "demand", day: day)
        else { return nil }
        peakRatio =
            demand.peakQPSPerMillion > 0 ? lifecycle.peakQPSPerMillion / demand.peakQPSPerMillion : .infinity
        packetsPerClientDay = demand.packetsPerClientDay
        withinNeed = demand.withinNeed
    }

    /// Whether the peak target is met.
    package var isGentleEnough: Bool { peakRatio >= Self.requiredPeakRatio }
    /// Whether the packet target is met.
    package var isFrugalEnough: Bool { packetsPerClientDay <= Self.allowedPackets }
    /// Whether the need target is met.
    package var meetsNeedEnough: Bool { withinNeed >= Self.requiredWithinNeed }
    /// Whether every target is met.
    package var isMet: Bool { isGentleEnough && isFrugalEnough && meetsNeedEnough }
}
