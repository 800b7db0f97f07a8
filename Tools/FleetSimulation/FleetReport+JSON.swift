import Foundation

extension FleetReport {
    /// One policy's figures as `--json` prints them.
    private struct PolicyFigures: Encodable {
        var name: String?
        var day: Int?
        var peak: Double
        var mean: Double
        var packets: Double
        var withinNeed: Double
        var errorWithinNeed: Double
        var withoutTime: Double
        var syncs: Double
        var reasons: [String: Double]
        var spikeReasons: [String: Double]
        var boundChecks: Int?
        var boundViolations: Int?
        var days: [PolicyFigures]?

        enum CodingKeys: String, CodingKey {
            case name, day, days
            case peak = "peak_qps_per_million"
            case mean = "mean_qps_per_million"
            case packets = "packets_per_client_day"
            case withinNeed = "within_need"
            case errorWithinNeed = "error_within_need"
            case withoutTime = "without_time"
            case syncs = "syncs_per_client_day"
            case reasons = "packets_by_reason"
            case spikeReasons = "spike_qps_per_million_by_reason"
            case boundChecks = "bound_checks"
            case boundViolations = "bound_violations"
        }

        init(_ figures: Figures) {
            peak = figures.peakQPSPerMillion
            mean = figures.meanQPSPerMillion
            packets = figures.packetsPerClientDay
            withinNeed = figures.withinNeed
            errorWithinNeed = figures.errorWithinNeed
            withoutTime = figures.withoutTime
            syncs = figures.syncsPerClientDay
            reasons = figures.packetsByReason
            spikeReasons = figures.spikeQPSByReason
        }
    }

    /// The whole report as `--json` prints it.
    private struct Document: Encodable {
        var clients: Int
        var seed: UInt64
        var days: Int
        var needMilliseconds: Double
        var binSeconds: Double
        var variant: [String]
        var policies: [PolicyFigures]

        enum CodingKeys: String, CodingKey {
            case clients, seed, days, variant, policies
            case needMilliseconds = "need_ms"
            case binSeconds = "bin_seconds"
        }
    }

    /// One JSON object: the run (`clients`, `seed`, `days`, `need_ms`, `bin_seconds`, `variant`)
    /// and a `policies` array whose entries have `name`, `peak_qps_per_million`,
    /// `mean_qps_per_million`, `packets_per_client_day` and `within_need` over every day simulated,
    /// the same for each day under `days`, and `error_within_need`, `without_time`,
    /// `syncs_per_client_day`, `packets_by_reason`, `spike_qps_per_million_by_reason`,
    /// `bound_checks`, `bound_violations`.
    package func json() -> String {
        let policies = tallies.compactMap { name, tally -> PolicyFigures? in
            guard let all = figures(of: name) else { return nil }
            var entry = PolicyFigures(all)
            entry.name = name
            entry.boundChecks = tally.boundChecks
            entry.boundViolations = tally.boundViolations
            entry.days = tally.requests.indices.compactMap { day in
                figures(of: name, day: day).map {
                    var figures = PolicyFigures($0)
                    figures.day = day + 1
                    return figures
                }
            }
            return entry
        }
        let document = Document(
            clients: simulation.clients, seed: simulation.seed, days: simulation.model.days,
            needMilliseconds: simulation.model.need * 1000, binSeconds: simulation.model.binWidth,
            variant: simulation.variant.flags, policies: policies)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(document) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
