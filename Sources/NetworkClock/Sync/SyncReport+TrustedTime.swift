import ClockCore
import TimeValues

extension SyncReport {
    /// Makes the report's result the clock's trusted time once `clock` has taken it (`update`
    /// says how): the top-level time and authentication become the clock's interval at the
    /// result's instant, the one answer `set`, `check` and the metrics read too, and the offset is
    /// that trusted time against `reading`, one bracketed reading of the system clock taken after
    /// the round (``NetworkClock/SystemClockOffset``). The bound covers both: the time's bound at
    /// the reading plus the reading's own uncertainty (half the gap between the monotonic reads
    /// around the wall-clock read), so a thread preempted between them widens the bound instead of
    /// showing as offset error. When the clock kept an authenticated anchor against
    /// unauthenticated evidence, each such source whose interval lies wholly outside that anchor
    /// is marked ``SourceStatus/contradictsAuthenticated``; the ones inside only confirm it.
    mutating func settle(
        on clock: AnchoredClock, update: AnchorUpdate, reading: NetworkClock.SystemClockReading
    ) {
        anchorUpdate = update
        guard let trusted = clock.estimate(at: monotonic) else { return }
        if update == .keptAuthenticated {
            for index in servers.indices where servers[index].tookPart && !servers[index].isAuthenticated {
                guard let interval = servers[index].interval, let held = clock.estimate(at: interval.instant)
                else { continue }
                let anchor = TrueTimeInterval(
                    time: held.time, bound: held.errorBound, instant: interval.instant)
                guard !interval.overlaps(anchor) else { continue }
                servers[index].status = .contradictsAuthenticated
                servers[index].reason =
                    "its time \(interval) lies wholly outside the held authenticated time \(anchor): "
                    + "unauthenticated time never overrules authenticated time"
            }
        }
        trueTime = trusted.time
        errorBound = trusted.errorBound
        isAuthenticated = trusted.isAuthenticated
        if let atReading = clock.estimate(at: reading.monotonic) {
            offset = atReading.time - reading.wall
            errorBound = max(errorBound, atReading.errorBound + reading.uncertainty)
        }
    }
}

extension SyncReport.Server {
    /// The times the server's answer proves, at its instant, as it took part in the selection (a
    /// smearing server's mapped onto stepping time); nil without one, and for a Roughtime server.
    package var interval: TrueTimeInterval? {
        switch details {
        case .ntp(let ntp), .nts(let ntp):
            guard let interval = ntp.estimate?.interval else { return nil }
            let (shift, widening) = (smearCorrection ?? .zero, smearWidening ?? .zero)
            return TrueTimeInterval(
                earliest: interval.earliest + shift - widening, latest: interval.latest + shift + widening,
                instant: interval.instant)
        case .http(let http), .https(let http): return http.interval
        case .roughtime: return nil
        }
    }
}
