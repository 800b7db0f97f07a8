import SNTP

/// Something that happened inside a ``NetworkClock``, for logging and metrics.
public enum ClockEvent: Sendable {
    /// A sync succeeded; `anchorReplaced` says whether it tightened the clock's bound.
    case synced(SyncReport, anchorReplaced: Bool)
    /// A sync produced no time.
    case syncFailed(SyncError)
    /// A source's replies were all rejected, it timed out or refused, or its samples contradicted
    /// each other (`inconsistent`).
    case sourceRejected(SyncReport.NTPSource)
    /// A source disagreed with the majority and was excluded.
    case falseticker(SyncReport.NTPSource)
    /// A source sent a Kiss-o'-Death.
    case kissOfDeath(SyncReport.NTPSource, NTPPacket.KissCode)
    /// The next sync is delayed after failures.
    case backoff(delay: Duration, consecutiveFailures: Int)
    /// The anchor was restored from the store at start-up.
    case restored(RestoredAnchor)
    /// The stored anchor could not be used (another boot, corrupt file, …).
    case restoreFailed(AnchorStoreError)
    /// The anchor could not be saved; the in-memory clock keeps working.
    case storeFailed(AnchorStoreError)
}
