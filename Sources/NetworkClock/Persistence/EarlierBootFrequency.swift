import ClockCore

/// What a state file written in another boot of this machine knew of the oscillator's frequency:
/// its sync points, on that boot's time base, and the interval it had itself carried from a boot
/// before. The anchor of such a file is refused (``AnchorStoreError/Code/differentBoot``); this
/// is carried over as a widened prior (``AnchoredClock/carryFrequency(fromEarlierBoot:carried:)``).
package struct EarlierBootFrequency: Sendable, Hashable {
    /// The sync points, oldest first, on the earlier boot's time base.
    package var points: [FrequencyTracker.Point]
    /// The interval the earlier boot carried (fractions, `lower...upper`), if any.
    package var carried: ClosedRange<Double>?
    /// The boot the file was written in.
    package var bootID: String

    /// Creates the knowledge of an earlier boot from its parts.
    package init(points: [FrequencyTracker.Point], carried: ClosedRange<Double>?, bootID: String) {
        self.points = points
        self.carried = carried
        self.bootID = bootID
    }
}
