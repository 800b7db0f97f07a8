import Foundation
import NetClockPlatform
import SNTP
import TimeValues

/// One method's errors and bounds over a scenario's trials.
struct MethodScore {
    var errors: [Double] = []
    var bounds: [Double] = []
    var contained = 0
    var attempts = 0
    /// Trials whose burst was reported inconsistent (no estimate): counted as outside the bound.
    var inconsistent = 0

    mutating func add(error: Duration, bound: Duration?) {
        attempts += 1
        errors.append(abs(error.secondsDouble))
        if let bound {
            bounds.append(bound.secondsDouble)
            if abs(error) <= bound { contained += 1 }
        }
    }

    var medianError: Double { Stats.median(errors) }
    var medianBound: Double { Stats.median(bounds) }
    var hasBound: Bool { !bounds.isEmpty || inconsistent > 0 }
    var containedPercent: Double { 100 * Double(contained) / Double(max(1, attempts)) }
}

/// Every method's score over one scenario, on the same exchanges, and the information limit.
struct AccuracyScores {
    var naive = MethodScore()
    var midpoint = MethodScore()
    var minDelay: [Int: MethodScore] = [:]
    var intersection: [Int: MethodScore] = [:]
    /// Per sample count: each trial's tightest provable bound and the error of its midpoint.
    var limitBounds: [Int: [Double]] = [:]
    var limitErrors: [Int: [Double]] = [:]
    /// Measured leg minus drawn delay, per accepted exchange (seconds): loopback transit and
    /// scheduling latency.
    var extraOut: [Double] = []
    var extraBack: [Double] = []

    init(_ trials: [AccuracyTrial], offset: Duration) {
        for trial in trials {
            for legs in trial.legs.compactMap({ $0 }) {
                extraOut.append((legs.outbound - legs.drawnOutbound).secondsDouble)
                extraBack.append((legs.return - legs.drawnReturn).secondsDouble)
            }
            guard let first = trial.burst.exchanges.first?.sample else { continue }
            // Naive: server transmit time − local receive time. Midpoint: one exchange's θ.
            naive.add(error: (first.t3 - first.t4) - offset, bound: nil)
            midpoint.add(error: first.offset - offset, bound: nil)
            for count in accuracySampleCounts {
                let burst = trial.prefix(count)
                guard let best = burst.best else { continue }
                minDelay[count, default: MethodScore()].add(
                    error: best.offset - offset, bound: best.errorBound)
                switch burst.estimate {
                case .success(let estimate):
                    intersection[count, default: MethodScore()].add(
                        error: estimate.interval.midpoint - estimate.localTime - offset,
                        bound: estimate.interval.radius)
                case .failure, .none:
                    intersection[count, default: MethodScore()].attempts += 1
                    intersection[count, default: MethodScore()].inconsistent += 1
                }
                if let limit = trial.limit(first: count) {
                    limitBounds[count, default: []].append(limit.bound.secondsDouble)
                    limitErrors[count, default: []].append(limit.error.secondsDouble)
                }
            }
        }
    }

    /// The intersection's median error over the minimum-delay pick's, for `count` samples.
    func errorRatio(_ count: Int) -> Double {
        (intersection[count]?.medianError ?? .nan) / (minDelay[count]?.medianError ?? .nan)
    }

    /// A method's median bound over the median tightest provable bound, for `count` samples.
    func boundRatio(_ score: MethodScore?, _ count: Int) -> Double {
        (score?.medianBound ?? .nan) / Stats.median(limitBounds[count] ?? [])
    }

    func table() -> Table {
        var table = Table(header: [
            "method", "median err (ms)", "p90 err (ms)", "truth in bound", "median bound (ms)",
            "limit bound (ms)", "limit err (ms)", "err / min-delay", "bound / limit",
        ])
        func row(_ name: String, _ score: MethodScore, count: Int?, baseline: MethodScore?) {
            let inBound =
                score.hasBound
                ? String(format: "%.0f%%", score.containedPercent)
                    + (score.inconsistent > 0 ? " (\(score.inconsistent) inconsistent)" : "")
                : "no bound"
            let limitBound = count.map { ms(Stats.median(limitBounds[$0] ?? [])) } ?? "-"
            let limitError = count.map { ms(Stats.median(limitErrors[$0] ?? [])) } ?? "-"
            let errorText = baseline.map { String(format: "%.2f", score.medianError / $0.medianError) } ?? "-"
            let boundText =
                count.map { score.bounds.isEmpty ? "-" : String(format: "%.3f", self.boundRatio(score, $0)) }
                ?? "-"
            table.add([
                name, ms(score.medianError), ms(Stats.quantile(score.errors, 0.9)), inBound,
                score.bounds.isEmpty ? "-" : ms(score.medianBound), limitBound, limitError, errorText,
                boundText,
            ])
        }
        row("naive T3-T4", naive, count: nil, baseline: nil)
        row("midpoint, 1 exchange", midpoint, count: nil, baseline: nil)
        for count in accuracySampleCounts {
            let plural = count > 1 ? "s" : ""
            let baseline = minDelay[count] ?? MethodScore()
            row("min-delay, \(count) sample\(plural)", baseline, count: count, baseline: baseline)
            row(
                "intersection, \(count) sample\(plural)", intersection[count] ?? MethodScore(), count: count,
                baseline: baseline)
        }
        return table
    }

    /// How much longer the measured legs were than the drawn delays.
    var latencyNote: String {
        "legs beyond the drawn delays (loopback transit + scheduling): median "
            + String(
                format: "%.1f µs out, %.1f µs back", Stats.median(extraOut) * 1e6,
                Stats.median(extraBack) * 1e6)
    }

    /// One line of the criteria summary.
    func summaryRow(_ name: String) -> [String] {
        let allContained =
            ([naive, midpoint] + Array(minDelay.values) + Array(intersection.values))
            .filter(\.hasBound).map(\.containedPercent).min() ?? 0
        return [
            name, String(format: "%.2f", errorRatio(4)), String(format: "%.2f", errorRatio(8)),
            String(format: "%.0f%%", allContained),
            String(format: "%.3f", boundRatio(intersection[4], 4)),
            String(format: "%.3f", boundRatio(intersection[8], 8)),
            String(format: "%.3f", boundRatio(minDelay[8], 8)),
        ]
    }
}
