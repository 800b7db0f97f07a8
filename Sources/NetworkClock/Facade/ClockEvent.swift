import ClockCore
import SNTP
import TimeValues

/// Something that happened inside a ``NetworkClock``, for logging and metrics.
public enum ClockEvent: Sendable {
    /// A sync succeeded; `anchorReplaced` says whether it tightened the clock's bound.
    case synced(SyncReport, anchorReplaced: Bool)
    /// A sync produced no time.
    case syncFailed(SyncError)
    /// An NTP or NTS server's replies were all rejected, it timed out or refused, or its samples
    /// contradicted each other (`inconsistent`).
    case sourceRejected(SyncReport.Server)
    /// An NTP or NTS server disagreed with the majority and was excluded.
    case falseticker(SyncReport.Server)
    /// An NTP or NTS server sent a Kiss-o'-Death.
    case kissOfDeath(SyncReport.Server, NTPPacket.KissCode)
    /// The next sync is delayed after failures.
    case backoff(delay: Duration, consecutiveFailures: Int)
    /// The anchor was restored from the store at start-up.
    case restored(RestoredAnchor)
    /// The stored anchor could not be used (another boot, corrupt file, a file refused as not
    /// private: ``AnchorStoreError/isUnsafeFile``, …); emitted by ``NetworkClock/start()``. Also
    /// emitted at a sync whose NTS cookie file (beside the anchor) could not be used, with that
    /// file's path: the sync then runs a new key exchange.
    case restoreFailed(AnchorStoreError)
    /// The anchor could not be saved; the in-memory clock keeps working.
    case storeFailed(AnchorStoreError)
    /// A new time (from a sync or ``NetworkClock/ingest(serverTime:requestSent:responseReceived:resolution:server:)``)
    /// did not overlap the current anchor's interval aged to the same instant, so one of them was
    /// wrong (a server that stepped or lies, or a local clock that ran outside its assumed
    /// tolerance). The new time replaced the anchor, and ``NetworkClock/now()`` jumped by `by`
    /// (new − old estimate at the same instant: positive means later). It is emitted before the
    /// sync's ``synced(_:anchorReplaced:)``.
    case anchorDiscontinuity(by: Duration)
    /// A sync contradicted the oscillator frequency the earlier syncs had measured: the frequency
    /// changed by more than the wander allowance (``NetworkClock/ClockPolicy``), or a sync was
    /// wrong. The history was cut back to what still agrees, and the bound grows at the prior
    /// tolerance until two syncs measure the frequency again. Emitted before the sync's
    /// ``synced(_:anchorReplaced:)``.
    case frequencyReset(FrequencyReset)
    /// A sync succeeded but its bound is wider than the app's need
    /// (``NetworkClock/RefreshPolicy/maximumBound``): only a slow source answered (the HTTP(S)
    /// fallback, Roughtime). The next sync backs off as after a failure instead of repeating every
    /// minimum interval.
    case needNotMet(bound: Duration, need: Duration)
    /// A sync still in progress gave a trusted time, or tightened it: the replies so far pass the
    /// same selection rules as a whole sync (the cold start's majority, NTS, the floor), so
    /// ``NetworkClock/now()`` has time within a round trip of the first replies. The sync's final
    /// result replaces it (``synced(_:anchorReplaced:)``); it is never written to the store.
    case provisional(TimeEstimate)
    /// The clock dropped its anchor and frequency history: the process now runs in another boot
    /// (a container restored on another machine, say), whose clocks count from another origin, so
    /// the instants the anchor was measured on mean nothing there. ``NetworkClock/now()`` is nil
    /// until the next sync. (A restore on the same machine needs no event: the clock carries its
    /// anchor across the time its clocks did not count, with the bound grown over it.)
    case anchorDropped(reason: String)
    /// The machine resumed from suspend after `suspendedFor` asleep (Linux: `CLOCK_BOOTTIME` grew
    /// by it against `CLOCK_MONOTONIC`). The bound grew meanwhile; a running clock syncs at once if
    /// its time no longer meets the need (``NetworkClock/RefreshPolicy/maximumBound``; without
    /// one, if the anchor is older than the interval). Emitted only while
    /// ``NetworkClock/start()`` runs, on Linux.
    case resumed(suspendedFor: Duration)
    /// An address or a route was added or removed (Linux rtnetlink; a burst counts once). A
    /// running clock whose syncs fail or back off retries within seconds, never sooner than the
    /// minimum interval after its last request; a healthy one does nothing. Emitted only while
    /// ``NetworkClock/start()`` runs, on Linux.
    case networkChanged
    /// The system's wall clock was stepped by `by` (positive: forward), by a user, a time daemon,
    /// `netclock set` or a leap second, with no resume. ``NetworkClock/now()`` never depended on it,
    /// so nothing is synced. Emitted only while ``NetworkClock/start()`` runs, on Linux.
    case wallClockStepped(by: Duration)

    /// Why the clock's frequency history was reset (``ClockEvent/frequencyReset(_:)``).
    public typealias FrequencyReset = ClockCore.FrequencyReset
}

extension ClockEvent {
    /// The event that tells of `source`'s fate in a sync, if it was not used: a falseticker,
    /// Kiss-o'-Death, or a rejection.
    static func status(of source: SyncReport.Server) -> ClockEvent? {
        switch source.status {
        case .falseticker: .falseticker(source)
        case .kissOfDeath:
            .kissOfDeath(source, source.ntp?.query?.kissCode ?? NTPPacket.KissCode(rawValue: "????"))
        case .rejected, .timeout, .refused, .error, .inconsistent: .sourceRejected(source)
        default: nil
        }
    }
}
