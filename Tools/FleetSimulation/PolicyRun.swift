/// Runs one policy on one client: moves the device from event to event (and to the times the
/// policy asks to act at), tells the policy what happened, counts the requests it sends and what
/// every `now()` call of the app reads (one a second while in the foreground).
///
/// Between two events nothing changes the clock, so the calls of a stretch are counted from the
/// policy's ``ReadingSpan`` (the bound only grows, the error is linear); `literal` instead moves the
/// device to each call and reads it, which the tests compare against.
package final class PolicyRun {
    /// The model.
    package let model: FleetModel
    /// The client's device.
    package let device: SimulatedDevice
    /// The policy's random stream.
    package var random: FleetRandom
    /// Whether the app's process is running.
    package private(set) var isRunning = false
    /// Whether the app is in the foreground.
    package private(set) var isForeground = false
    private var foregroundStart = 0.0
    private var tally: PolicyTally
    private let literal: Bool

    /// A run of a policy on `schedule`'s client with `random`.
    package init(schedule: ClientSchedule, model: FleetModel, random: FleetRandom, literal: Bool = false) {
        self.model = model
        self.device = SimulatedDevice(schedule: schedule)
        self.random = random
        self.literal = literal
        self.tally = PolicyTally(days: model.days, bins: model.bins, spikeBin: model.spikeBin)
    }

    /// Counts `count` requests sent `after` seconds from now, for `reason`.
    package func send(_ count: Int, after: Double = 0, reason: String) {
        tally.send(count, at: device.now + after, binWidth: model.binWidth, reason: reason)
    }

    /// Counts a sync started now and the requests it sends, for `reason`.
    package func sync(_ outcome: SyncOutcome, reason: String) {
        tally.countSync(at: device.now)
        for offset in outcome.requests { send(1, after: offset, reason: reason) }
    }

    /// Runs `policy` over the whole simulation and returns its tally.
    package func run(_ policy: some FleetPolicy) -> PolicyTally {
        let end = Double(model.days) * FleetModel.day
        let events = device.schedule.events
        var index = 0
        policy.begin(in: self)
        while true {
            let eventTime = index < events.count ? events[index].time : end
            if let action = policy.nextAction, action <= eventTime, action < end {
                move(to: action, policy)
                policy.act(in: self)
                continue
            }
            guard index < events.count else { break }
            let event = events[index]
            index += 1
            move(to: event.time, policy)
            switch event.kind {
            case .launch:
                (isRunning, isForeground, foregroundStart) = (true, true, device.now)
            case .foreground:
                (isForeground, foregroundStart) = (true, device.now)
            case .background:
                isForeground = false
            case .exit:
                (isRunning, isForeground) = (false, false)
            case .suspend(let duration):
                device.suspend(for: duration)
            case .reboot:
                device.reboot()
            case .networkChange:
                break
            }
            policy.handle(event.kind, in: self)
        }
        move(to: end, policy)
        return tally
    }

    /// Counts the calls until `time` (day by day) and moves the device there.
    private func move(to time: Double, _ policy: some FleetPolicy) {
        while device.now < time {
            let dayEnd = ((device.now / FleetModel.day).rounded(.down) + 1) * FleetModel.day
            let stop = min(time, dayEnd)
            if isForeground { count(until: stop, policy) }
            device.advance(to: stop)
        }
    }

    /// Counts the `now()` calls in [now, `time`), all on one day.
    private func count(until time: Double, _ policy: some FleetPolicy) {
        let step = model.nowInterval
        let start = device.now
        let first = ((start - foregroundStart) / step).rounded(.up)
        let calls = Int(((time - foregroundStart) / step).rounded(.up) - first)
        guard calls > 0 else { return }
        let day = min(Int((start / FleetModel.day).rounded(.down)), model.days - 1)
        tally.nowCalls[day] += calls
        let firstOffset = foregroundStart + first * step - start
        if literal {
            for call in 0..<calls {
                device.advance(to: start + firstOffset + Double(call) * step)
                tallyReading(policy.reading(in: self), day: day)
            }
            return
        }
        guard let span = policy.readings(over: time - start, in: self) else {
            tally.withoutTime[day] += calls
            return
        }
        let offsets = CallOffsets(first: firstOffset, step: step, count: calls)
        let need = model.need
        let error = LinearError(start: span.start.error, end: span.end.error, length: time - start)
        let errorWithin = error.within(need).map(offsets.count(in:)) ?? 0
        tally.errorWithinNeed[day] += errorWithin
        if let bound = span.start.bound {
            tally.withinNeed[day] += span.boundWithin.map { offsets.count(in: 0...$0) } ?? 0
            tally.boundChecks += 2
            if abs(span.start.error) > bound { tally.boundViolations += 1 }
            if let end = span.end.bound, abs(span.end.error) > end { tally.boundViolations += 1 }
        } else {
            tally.withinNeed[day] += errorWithin
        }
    }

    /// Counts one call's reading.
    private func tallyReading(_ reading: Reading?, day: Int) {
        guard let reading else {
            tally.withoutTime[day] += 1
            return
        }
        let errorWithin = abs(reading.error) <= model.need
        if errorWithin { tally.errorWithinNeed[day] += 1 }
        if let bound = reading.bound {
            if bound <= model.need { tally.withinNeed[day] += 1 }
            tally.boundChecks += 1
            if abs(reading.error) > bound { tally.boundViolations += 1 }
        } else if errorWithin {
            tally.withinNeed[day] += 1
        }
    }
}

/// The offsets of a stretch's calls from its start: `first`, `first + step`, … (`count` of them).
private struct CallOffsets {
    var first: Double
    var step: Double
    var count: Int

    /// How many lie in `range`.
    func count(in range: ClosedRange<Double>) -> Int {
        let low = max(0, Int(((range.lowerBound - first) / step).rounded(.up)))
        let high = min(count - 1, Int(((range.upperBound - first) / step).rounded(.down)))
        return max(0, high - low + 1)
    }
}

/// An error that moves linearly from `start` to `end` over `length` seconds.
private struct LinearError {
    var start: Double
    var end: Double
    var length: Double

    /// Where its magnitude is within `need`, as offsets in 0…length; nil when nowhere.
    func within(_ need: Double) -> ClosedRange<Double>? {
        let slope = length > 0 ? (end - start) / length : 0
        var (low, high) = (0.0, length)
        if slope == 0 {
            return abs(start) <= need ? low...high : nil
        }
        let a = (-need - start) / slope
        let b = (need - start) / slope
        low = max(low, min(a, b))
        high = min(high, max(a, b))
        return low <= high ? low...high : nil
    }
}
