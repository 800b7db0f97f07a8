import Foundation

/// The fleet every policy is judged on, as issue 43 pins it, with the few choices it leaves open made
/// once here (the FleetSimulation article, "The model"). Times are seconds of true time.
package struct FleetModel: Sendable, Hashable {
    /// Simulated days: the first starts from fresh installs, the second with what the first left.
    package var days = 2
    /// Launches per client and day: Poisson with this mean, at the diurnal rate.
    package var launchesPerDay = 8.0
    /// A session's foreground time: log-normal with this median…
    package var sessionMedian = 240.0
    /// …and this σ of its logarithm (a mean of 6.6 minutes).
    package var sessionSigma = 1.0
    /// Longest foreground time of one session.
    package var sessionLimit = 4.0 * 3600
    /// Times a session goes to the background and comes back.
    package var switchesPerSession = 3
    /// Mean time in the background at each switch (exponential); the app's process keeps running.
    package var backgroundMean = 60.0
    /// Suspend/resume cycles of the device per day, at uniform times outside the app's sessions.
    package var suspendsPerDay = 2
    /// A suspend's length: log-normal with this median, cut short by the next launch.
    package var suspendMedian = 1800.0
    /// σ of the logarithm of a suspend's length.
    package var suspendSigma = 1.0
    /// Network changes per day, at the diurnal rate (one during a suspend happens on resume).
    package var networkChangesPerDay = 4
    /// Reboots per day, at a uniform time outside the app's sessions (instantaneous).
    package var rebootsPerDay = 1
    /// The diurnal rate's peak over its trough (a sinusoid over the day).
    package var diurnalPeakToTrough = 3.0
    /// Hour of the diurnal peak.
    package var diurnalPeakHour = 20.0
    /// Hour of the synchronised spike.
    package var spikeHour = 20.0
    /// Fraction of the fleet the spike brings to the foreground (a launch, or a return to the
    /// foreground where the app runs in the background).
    package var spikeFraction = 0.2
    /// The spike's window: its launches are uniform over it.
    package var spikeWindow = 60.0
    /// The oscillators' frequency error at the start: uniform in ± this, in ppm.
    package var oscillatorPPM = 20.0
    /// How far the frequency wanders a day (linearly, at a rate uniform in ± this), in ppm.
    package var wanderPPMPerDay = 1.0
    /// Mean round trip of a request to a time server.
    package var roundTrip = 0.030
    /// Round trips are uniform in `roundTrip` ± this.
    package var roundTripSpread = 0.020
    /// A server's root dispersion and precision, added to half the round trip in a sync's bound.
    package var dispersion = 0.001
    /// The app's need: the widest error bound (or error, for clocks without a bound) it accepts.
    package var need = 0.1
    /// `now()` is called this often while the app is in the foreground.
    package var nowInterval = 1.0
    /// Width of the bins queries are counted in; the peak is the busiest bin.
    package var binWidth = 60.0

    /// The pinned model.
    package init() {}

    /// Bins in a day.
    package var bins: Int { Int((Self.day / binWidth).rounded(.up)) }

    /// The bin the synchronised spike starts in.
    package var spikeBin: Int { min(Int(spikeHour * 3600 / binWidth), bins - 1) }

    /// Seconds in a day.
    package static let day = 86_400.0

    /// The diurnal rate at `seconds` into a day, relative to its mean: a sinusoid peaking at
    /// ``diurnalPeakHour`` whose peak is ``diurnalPeakToTrough`` times its trough.
    package func diurnalRate(atSecondOfDay seconds: Double) -> Double {
        let ratio = max(diurnalPeakToTrough, 1)
        let amplitude = (ratio - 1) / (ratio + 1)
        let phase = 2 * Double.pi * (seconds - diurnalPeakHour * 3600) / Self.day
        return 1 + amplitude * cos(phase)
    }

    /// The highest value of ``diurnalRate(atSecondOfDay:)``.
    package var diurnalPeak: Double {
        let ratio = max(diurnalPeakToTrough, 1)
        return 1 + (ratio - 1) / (ratio + 1)
    }
}
