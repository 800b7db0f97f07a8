import ClockCore
import NetClockPlatform
import TimeValues

/// What the app's `now()` reads, now and over a stretch.
extension LibraryApp {
    /// What the running process's `now()` reads.
    package func reading(on device: SimulatedDevice) -> Reading? {
        guard let estimate = process?.now() else { return nil }
        return Reading(
            error: (estimate.time - device.trueTime).secondsDouble, bound: estimate.errorBound.secondsDouble)
    }

    /// What the running process's `now()` reads over the next `seconds`, and how long its bound
    /// stays within `need`.
    package func readings(over seconds: Double, need: Double, on device: SimulatedDevice) -> ReadingSpan? {
        guard let clock = process, let start = reading(on: device) else { return nil }
        let distance = device.exchangeDistance(overTrueSeconds: seconds)
        guard let end = ahead(of: clock, after: distance, on: device) else { return nil }
        let endReading = Reading(
            error: (end.time - (device.trueTime + .seconds(seconds))).secondsDouble, bound: end.bound)
        var within: Double?
        if let bound = start.bound, bound <= need {
            if end.bound <= need {
                within = seconds
            } else {
                var (low, high) = (0.0, seconds)
                while high - low > 0.001 {
                    let middle = (low + high) / 2
                    let later = ahead(
                        of: clock, after: device.exchangeDistance(overTrueSeconds: middle), on: device)
                    if let later, later.bound <= need { low = middle } else { high = middle }
                }
                within = low
            }
        }
        return ReadingSpan(start: start, end: endReading, boundWithin: within)
    }

    /// The time and bound `now()` will read `distance` from now (the simulated kernel never
    /// slews, so the exchange clock's distance is the time base's): what the schedule asks too
    /// (``AnchoredClock/estimate(afterElapsed:)``).
    func ahead(of clock: AnchoredClock, after distance: Duration, on device: SimulatedDevice)
        -> (time: UnixTime, bound: Double)?
    {
        guard let estimate = clock.estimate(afterElapsed: distance) else { return nil }
        return (estimate.time, estimate.errorBound.secondsDouble)
    }

}
