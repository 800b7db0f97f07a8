import NetworkClock

/// The `frequency` object of `now --json` and `sync --json`: what the anchored clock knows about
/// its oscillator, the raw clock it counts time on between syncs.
///
/// Frequencies are in ppm, positive when the local oscillator runs fast (against a server whose
/// clock gains 60 ppm on ours, about −60). Durations are seconds.
struct FrequencyJSON: Encodable {
    /// The frequency error corrected for; 0 while only the prior tolerance is known.
    var ppm: Double
    /// `[lower, upper]`: where the frequency error can lie now (the measured interval widened by
    /// the wander allowed since the anchor; the prior tolerance before two syncs).
    var intervalPPM: [Double]
    /// How fast the error bound grows now: half the interval's width.
    var growthPPM: Double
    /// Whether two syncs or more measured it, or an earlier boot's did (false: the prior
    /// tolerance only).
    var measured: Bool
    /// Whether what an earlier boot measured, widened for the reboot, is part of it.
    var carried: Bool
    /// The sync points in the history.
    var syncs: Int
    /// The time between the oldest and the newest of them.
    var span: Double
    /// The time since the newest of them; `null` with none.
    var age: Nullable<Double>
    /// How many times a sync contradicted the history and reset it.
    var resets: Int
    /// Why it was last reset (`frequency_changed`, `discontinuity`); `null` if never.
    var lastReset: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case ppm, measured, carried, syncs, span, age, resets
        case intervalPPM = "interval_ppm"
        case growthPPM = "growth_ppm"
        case lastReset = "last_reset"
    }

    /// The object for `frequency`.
    init(_ frequency: FrequencyEstimate) {
        ppm = frequency.ppm
        intervalPPM = [frequency.lowerPPM, frequency.upperPPM]
        growthPPM = frequency.growthRatePPM
        measured = frequency.isMeasured
        carried = frequency.isCarried
        syncs = frequency.syncCount
        span = frequency.span.secondsDouble
        age = Nullable(frequency.age?.secondsDouble)
        resets = frequency.resetCount
        lastReset = Nullable(frequency.lastReset?.rawValue)
    }
}
