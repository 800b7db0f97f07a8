import NetClockPlatform
import TimeValues

/// A clock without a bound, as Kronos, TrueTime.swift and the system clock under timesyncd are:
/// the time learnt at a sync plus the device's elapsed boot time since (suspends included), with no
/// frequency correction, so its error grows at the oscillator's frequency error.
package struct UptimeClock: Sendable, Hashable {
    /// The time learnt and the boot-time reading it was learnt at.
    package var trueTime: UnixTime
    /// The boot-time clock then.
    package var monotonic: MonotonicInstant

    /// The time `outcome` learnt, now.
    package init(_ outcome: SyncOutcome, on device: SimulatedDevice) {
        self.init(error: outcome.error, on: device)
    }

    /// A clock off by `error` seconds now.
    package init(error: Double, on device: SimulatedDevice) {
        trueTime = device.trueTime + .seconds(error)
        monotonic = device.clock.now()
    }

    /// The reading now: time − truth.
    package func reading(on device: SimulatedDevice) -> Reading {
        let time = trueTime + (device.clock.now() - monotonic)
        return Reading(error: (time - device.trueTime).secondsDouble, bound: nil)
    }

    /// The readings over the next `seconds` (the error grows by what the oscillator gains).
    package func readings(over seconds: Double, on device: SimulatedDevice) -> ReadingSpan {
        let start = reading(on: device)
        let gain = device.exchangeDistance(overTrueSeconds: seconds).secondsDouble - seconds
        return ReadingSpan(
            start: start, end: Reading(error: start.error + gain, bound: nil), boundWithin: nil)
    }
}
