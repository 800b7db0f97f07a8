import ClockCore
import SNTP
import TimeValues

/// An anchor read back from an ``AnchorStore``, with what was saved alongside it.
public struct RestoredAnchor: Sendable, Hashable {
    /// The anchor, with source ``TimeSource/restored`` and the server it was synced with.
    package var anchor: Anchor
    /// The source the anchor had when saved (`ntp`, `http`, or `restored` if re-saved after a
    /// restore).
    public var originalSource: TimeSource
    /// Where the anchor lay on the time base (nil in files written before holdover).
    package var timeBase: TimeBaseInstant?
    /// The frequency history's sync points that were saved, oldest first.
    package var frequencyHistory: [FrequencyTracker.Point]
    /// What the history carried from an earlier boot (fractions, `lower...upper`), if anything.
    package var carriedFrequency: ClosedRange<Double>?
    /// The boot identity the file was written in (equal to the current one).
    public var bootID: String
    /// The wall-clock time when the file was written; informational only, since the wall clock may
    /// have been wrong or changed since.
    public var writtenAt: UnixTime
    /// The monotonic instant when the file was written.
    public var writtenAtMonotonic: MonotonicInstant

    /// True time at the anchor's boot-time instant.
    public var trueTime: UnixTime { anchor.trueTime }
    /// The error bound of ``trueTime`` when it was measured (it has grown since).
    public var errorBound: Duration { anchor.errorBound }
    /// The server the anchor was synced with, if known.
    public var server: String? { anchor.server }

    /// Creates a restored anchor from its parts.
    package init(
        anchor: Anchor, originalSource: TimeSource, timeBase: TimeBaseInstant? = nil,
        frequencyHistory: [FrequencyTracker.Point] = [], carriedFrequency: ClosedRange<Double>? = nil,
        bootID: String, writtenAt: UnixTime, writtenAtMonotonic: MonotonicInstant
    ) {
        self.anchor = anchor
        self.originalSource = originalSource
        self.timeBase = timeBase
        self.frequencyHistory = frequencyHistory
        self.carriedFrequency = carriedFrequency
        self.bootID = bootID
        self.writtenAt = writtenAt
        self.writtenAtMonotonic = writtenAtMonotonic
    }
}
