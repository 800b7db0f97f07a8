import TimeValues

/// How the clock learns its oscillator's frequency from successive syncs and how it grows the
/// error bound between them (holdover).
///
/// Between syncs the clock counts time on the raw oscillator (`CLOCK_MONOTONIC_RAW`, which no
/// time daemon can slew) plus the time spent suspended. Every two syncs bound the oscillator's
/// frequency error; the clock keeps the tightest interval all pairs allow, corrects its
/// estimate by the interval's middle and grows the bound by the interval's half-width plus an
/// allowance for the frequency wandering since (temperature): a jump of
/// ``wanderPPM``, then ``wanderRatePPMPerHour``, never more than ``wanderLimitPPM`` in all.
/// Before two syncs, the bound grows at ``priorTolerancePPM``; after a reboot, at what an earlier
/// boot measured, widened by ``wanderLimitPPM`` and ``rebootAllowancePPM`` (the kernel calibrates
/// the raw clock again at each boot), until this boot's syncs measure it. Out-of-range values are
/// clamped where they are used, never trapped on.
public struct ClockPolicy: Sendable, Hashable {
    /// The frequency error assumed over the seconds one exchange or burst takes, in ppm: it
    /// widens each NTP sample's bound by that much of its round trip, each burst sample's
    /// interval for its distance from the burst's latest sample, and HTTP evidence for its age.
    /// Default 15 ppm, RFC 5905's `PHI`. Clamped to `0...1000`. (The bound between syncs grows
    /// at the measured frequency's uncertainty instead, and at ``priorTolerancePPM`` before.)
    public var frequencyTolerancePPM: Double
    /// The frequency error the oscillator is assumed to have at most before two syncs have
    /// measured it, in ppm: the bound grows at this rate after the first sync, and after a
    /// sync that contradicted the measured frequency. Default 500 ppm: in a survey of about
    /// 20,000 NTP hosts the median oscillator was 78 ppm off, a few beyond 500 ppm (D. L.
    /// Mills, *Computer Network Time Synchronization*, CRC Press, chapter "Computer
    /// Clocks"), and 500 ppm is the most the kernel's discipline will correct (Linux
    /// `MAXFREQ`, RFC 5905 `MAXFREQ`). A measured frequency outside it replaces it rather than
    /// being clipped. Clamped to `0...1000`.
    public var priorTolerancePPM: Double
    /// How far the frequency may move at once between two syncs, in ppm: added to every pair's
    /// interval as soon as time passes. Default 1 ppm, chrony's default `maxclockerror` (the
    /// frequency error the system clock "can gain on its own between clock updates").
    /// Clamped to `0...1000`.
    public var wanderPPM: Double
    /// How fast the frequency may wander with temperature, in ppm per hour of elapsed time
    /// (suspended time included), on top of ``wanderPPM``. Default 10 ppm/h: a typical quartz
    /// moves about 1 ppm per °C and a PC's clock was measured to gain 11 ppm while it warmed up
    /// after power-on (NTP FAQ, §3.3.1, "Quartz Oscillators in IBM compatible PCs"): roughly an
    /// hour's warming. Clamped to `0...1000`.
    public var wanderRatePPMPerHour: Double
    /// The most the frequency may wander from what was measured, in ppm, however long the clock
    /// is offline. Default 10 ppm: chrony's `maxclockerror` for "a low quality clock", and the
    /// ±10 ppm range chrony's temperature compensation accepts (`tempcomp`). Clamped to
    /// `0...1000`.
    public var wanderLimitPPM: Double
    /// How far the frequency error may move across a reboot, in ppm, on top of
    /// ``wanderLimitPPM``: the kernel calibrates the raw clock again at each boot, so an earlier
    /// boot's measured frequency is carried over only widened by this much. Default 10 ppm: a TSC
    /// whose frequency the CPU reports (CPUID leaf 0x15) gets the same nominal value at every
    /// boot; the kernel's refined calibration measures it over about a second against the HPET
    /// or ACPI PM timer and keeps whole kHz (under 1 ppm of a GHz clock); in a VM, kvm-clock runs
    /// at the host's calibration. A kernel that only calibrates quickly against the PIT was seen
    /// to spread by ±56 ppm over five boots (2400.204 ± 0.134 MHz): raise it there. A move beyond
    /// it is caught at the next sync, as any change beyond the wander allowance is (the
    /// HowTheErrorBoundWorks article, "After a reboot"). Clamped to `0...1000`.
    public var rebootAllowancePPM: Double
    /// The tolerance of suspended time, in ppm of it: suspend is measured by the RTC (a
    /// 32 kHz tuning-fork crystal, typically ±20 ppm at 25 °C and −0.034 ppm/°C² away from it)
    /// or by a clock source that runs through suspend. Default 100 ppm. Clamped to `0...1000`.
    public var suspendTolerancePPM: Double
    /// Added to the bound once suspended time has passed: the RTC counts whole seconds, so the
    /// kernel's measure of a suspend can be up to a second off (it keeps repeated suspends from
    /// accumulating more, `timekeeping_suspend`). Default 1 s; 0 on hardware whose suspend is
    /// timed by a clock source that runs through it. Clamped to `0...60 s`.
    public var suspendResolution: Duration
    /// The most sync points kept; when full, one of the closest-spaced pair is dropped (never
    /// the oldest or newest). Default 16. Clamped to `2...1024`.
    public var frequencyHistoryCapacity: Int
    /// Sync points older than this (before the newest, on the time base) are forgotten.
    /// Default 24 hours; by then the wander allowance has made them useless anyway.
    public var frequencyHistoryWindow: Duration
    /// Whether the clock smears leap seconds (the 24 h linear smear, noon to noon UTC, that the
    /// big public smearing servers use) instead of stepping as POSIX time does (an inserted
    /// second repeats, a deleted one is skipped). Default `false`: POSIX, like the stepping
    /// servers the clock is told to use. See the LeapSeconds article.
    public var smearsLeapSeconds: Bool = false

    /// Creates a policy; every parameter has the default described on its property.
    public init(
        frequencyTolerancePPM: Double = FrequencyTolerance.defaultPPM,
        priorTolerancePPM: Double = 500,
        wanderPPM: Double = 1,
        wanderRatePPMPerHour: Double = 10,
        wanderLimitPPM: Double = 10,
        rebootAllowancePPM: Double = 10,
        suspendTolerancePPM: Double = 100,
        suspendResolution: Duration = .seconds(1),
        frequencyHistoryCapacity: Int = 16,
        frequencyHistoryWindow: Duration = .seconds(24 * 3600)
    ) {
        self.frequencyTolerancePPM = frequencyTolerancePPM
        self.priorTolerancePPM = priorTolerancePPM
        self.wanderPPM = wanderPPM
        self.wanderRatePPMPerHour = wanderRatePPMPerHour
        self.wanderLimitPPM = wanderLimitPPM
        self.rebootAllowancePPM = rebootAllowancePPM
        self.suspendTolerancePPM = suspendTolerancePPM
        self.suspendResolution = suspendResolution
        self.frequencyHistoryCapacity = frequencyHistoryCapacity
        self.frequencyHistoryWindow = frequencyHistoryWindow
    }

    // MARK: Sanitized values, as the clock and the tracker use them

    /// `priorTolerancePPM` as a fraction, clamped to `0...1e-3`.
    var priorFraction: Double { Self.fraction(ppm: priorTolerancePPM, fallback: 500) }

    /// `wanderPPM` as a fraction.
    var wanderFraction: Double { Self.fraction(ppm: wanderPPM, fallback: 1) }

    /// `wanderRatePPMPerHour` as a fraction per second.
    var wanderRatePerSecond: Double { Self.fraction(ppm: wanderRatePPMPerHour, fallback: 10) / 3600 }

    /// `wanderLimitPPM` as a fraction, at least `wanderFraction`.
    var wanderLimitFraction: Double {
        max(wanderFraction, Self.fraction(ppm: wanderLimitPPM, fallback: 10))
    }

    /// `rebootAllowancePPM` as a fraction.
    var rebootAllowanceFraction: Double { Self.fraction(ppm: rebootAllowancePPM, fallback: 10) }

    /// `suspendTolerancePPM` as a fraction.
    var suspendToleranceFraction: Double { Self.fraction(ppm: suspendTolerancePPM, fallback: 100) }

    /// `suspendResolution`, clamped to `0...60 s`.
    var sanitizedSuspendResolution: Duration {
        min(.seconds(60), max(.zero, suspendResolution))
    }

    /// `frequencyHistoryCapacity`, clamped to `2...1024`.
    var historyCapacity: Int { min(1024, max(2, frequencyHistoryCapacity)) }

    /// `frequencyHistoryWindow`, at least one second.
    var historyWindow: Duration { max(.seconds(1), frequencyHistoryWindow) }

    private static func fraction(ppm: Double, fallback: Double) -> Double {
        let value = ppm.isFinite ? ppm : fallback
        return min(1000, max(0, value)) / 1e6
    }
}
