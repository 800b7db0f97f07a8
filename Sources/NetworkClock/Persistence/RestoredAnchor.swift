/// An anchor read back from an ``AnchorStore``, with what was saved alongside it.
public struct RestoredAnchor: Sendable, Hashable {
    /// The anchor, with source ``TimeSource/restored`` and the server it was synced with.
    public var anchor: Anchor
    /// The source the anchor had when saved (`ntp`, `http`, or `restored` if re-saved after a
    /// restore).
    public var originalSource: TimeSource
    /// The drift-estimation sync points that were saved, oldest first.
    public var driftHistory: [DriftEstimator.SyncPoint]
    /// The boot identity the file was written in (equal to the current one).
    public var bootID: String
    /// The wall-clock time when the file was written; informational only, since the wall clock may
    /// have been wrong or changed since.
    public var writtenAt: UnixTime
    /// The monotonic instant when the file was written.
    public var writtenAtMonotonic: MonotonicInstant

    /// Creates a restored anchor from its parts.
    public init(
        anchor: Anchor, originalSource: TimeSource, driftHistory: [DriftEstimator.SyncPoint], bootID: String,
        writtenAt: UnixTime, writtenAtMonotonic: MonotonicInstant
    ) {
        self.anchor = anchor
        self.originalSource = originalSource
        self.driftHistory = driftHistory
        self.bootID = bootID
        self.writtenAt = writtenAt
        self.writtenAtMonotonic = writtenAtMonotonic
    }
}
