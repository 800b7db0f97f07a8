import NetClockPlatform
import NetworkClock
import SNTP

/// `netclock now`: the trusted time from the stored anchor, with no network traffic.
struct NowCommand {
    var options: QueryCommandOptions
    var console: Console

    func run() -> ExitStatus {
        let store: AnchorStore
        switch AnchorFileLocation.store(for: options) {
        case .success(let found): store = found
        case .failure(let error):
            console.err("netclock: no valid anchor: \(error.reason)")
            return .noTime
        }
        let clock = AnchoredClock()
        if case .failure(let error) = clock.restore(from: store) {
            console.err("netclock: no valid anchor: \(error.reason) (run `netclock sync` first)")
            return .noTime
        }
        guard let estimate = clock.now() else {
            console.err("netclock: no valid anchor in \(store.path)")
            return .noTime
        }
        let offset = estimate.offset(from: SystemWallClock().now())
        if options.json {
            let value = JSONValue.object([
                ("time", .string(ISO8601.format(estimate.time, fractionDigits: 6))),
                ("unix", .number(estimate.time.secondsDouble)),
                ("error_bound", .seconds(estimate.errorBound)),
                ("age", .seconds(estimate.age)),
                ("source", .string(estimate.source.rawValue)),
                ("server", .optional(estimate.server)),
                ("offset", .seconds(offset)),
                ("drift_corrected", .bool(estimate.isDriftCorrected)),
            ])
            console.out(value.serialized())
        } else {
            var line =
                "\(ISO8601.format(estimate.time, fractionDigits: 6)) ± \(estimate.errorBound.formattedSeconds)"
            line += "  (\(estimate.source)\(estimate.server.map { ", \($0)" } ?? ""), synced "
            line += "\(estimate.age.formattedSeconds) ago, local clock \(ReportText.signed(.zero - offset)))"
            console.out(line)
        }
        return .success
    }
}
