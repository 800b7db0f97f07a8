import NetClockPlatform

/// What one sample of a burst proves, placed on the boot-time line: the interval of boot epochs
/// (true time − monotonic instant) that contains the truth at `instant`, and how fast that interval
/// may move with time.
///
/// Boot epochs, unlike offsets from the wall clock, do not depend on the wall clock's reading, so
/// intervals from different instants can be compared once each is aged by its frequency tolerance.
package struct BurstInterval: Hashable, Sendable {
    /// The boot epochs consistent with the sample at `instant`: [θ − ε, θ + ε] on the boot-time line.
    package var bootEpoch: OffsetInterval
    /// The monotonic instant at which ``bootEpoch`` holds (the sample's receive instant, T4).
    package var instant: MonotonicInstant
    /// How fast the boot epoch may drift, in parts per million of elapsed monotonic time.
    package var tolerancePPM: Double

    /// Creates an interval from its parts.
    package init(bootEpoch: OffsetInterval, instant: MonotonicInstant, tolerancePPM: Double) {
        self.bootEpoch = bootEpoch
        self.instant = instant
        self.tolerancePPM = tolerancePPM
    }

    /// The interval `sample` proves: its boot epoch ± its error bound, at its receive instant, with
    /// its frequency tolerance.
    package init(_ sample: NTPSample) {
        let epoch = sample.trueTime.sinceEpoch - sample.receivedAt.sinceOrigin
        self.init(
            bootEpoch: OffsetInterval(offset: epoch, bound: sample.errorBound), instant: sample.receivedAt,
            tolerancePPM: sample.frequencyTolerancePPM)
    }

    /// How much the interval grows between ``instant`` and `reference` (either side): the frequency
    /// tolerance times the distance.
    package func widening(to reference: MonotonicInstant) -> Duration {
        abs(reference - instant).drift(atPPM: max(tolerancePPM, 0))
    }

    /// The interval as it stands at `reference`: widened by ``widening(to:)``.
    package func aged(to reference: MonotonicInstant) -> OffsetInterval {
        bootEpoch.widened(by: widening(to: reference))
    }
}
