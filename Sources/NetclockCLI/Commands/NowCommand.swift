import NetworkClock

/// `netclock now`: the trusted time from the stored anchor, with no network traffic: a
/// ``NetworkClock`` that only restores from its ``AnchorStore``.
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
        var policy = NetworkClock.ClockPolicy()
        policy.smearsLeapSeconds = options.smearsLeapSeconds
        let clock = NetworkClock(
            configuration: NetworkClock.Configuration(servers: [], clock: policy, store: store))
        switch clock.restoreResult {
        case .success?: break
        case .failure(let error)? where error.isUnsafeFile:
            console.err(
                "netclock: no valid anchor: refusing the state file: \(error.reason); nothing was read")
            return .noTime
        case .failure(let error)?:
            console.err("netclock: no valid anchor: \(error.reason) (run `netclock sync` first)")
            return .noTime
        case nil:
            break
        }
        guard let comparison = clock.systemClockOffset() else {
            console.err("netclock: no valid anchor in \(store.path)")
            return .noTime
        }
        let estimate = comparison.trustedTime
        let offset = comparison.offset
        if let maxBound = options.maxBound, estimate.errorBound > maxBound {
            console.err(
                "netclock: the stored anchor's bound ± \(estimate.errorBound.formattedSeconds) is wider than"
                    + " --max-bound \(maxBound.formattedSeconds) (run `netclock sync`)")
            return .noTime
        }
        if options.json {
            console.out(
                JSONOutput.line(
                    NowJSON(
                        comparison, systemClock: NetworkClock.systemClockState(), frequency: clock.frequency()
                    )))
        } else {
            var line =
                "\(ISO8601.format(estimate.time, fractionDigits: 6)) ± \(comparison.errorBound.formattedSeconds)"
            line += "  (\(estimate.source)\(estimate.server.map { ", \($0)" } ?? "")"
            line += estimate.isAuthenticated ? ", authenticated, synced " : ", synced "
            line +=
                "\(estimate.age.formattedSeconds) ago, local clock \((.zero - offset).signedFormattedSeconds))"
            console.out(line)
            if estimate.leap.isWorthALine(at: estimate.time) {
                console.out("leap second: \(estimate.leap.text)")
            }
        }
        return .success
    }
}
