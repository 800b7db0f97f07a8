import TimeValues

/// One tick of the clock's tick sequence (`ticks(every:)`): a true-time interval boundary and
/// the clock's estimate when the tick was delivered.
public struct ClockTick: Sendable, Hashable {
    /// The true-time boundary this tick marks, a whole multiple of the interval since the epoch.
    public let boundary: UnixTime
    /// The clock's estimate when the tick was delivered (its time is at or just after `boundary`).
    public let estimate: TimeEstimate

    /// How late the tick was delivered, in true time.
    public var lateness: Duration { estimate.time - boundary }
}

/// An asynchronous sequence of ticks on true-time interval boundaries, e.g. every whole second of
/// server time, for countdowns.
///
/// Each wait is computed afresh from the clock's anchor, so timer lateness never accumulates and a
/// change to the wall clock never shifts a tick. A boundary is never delivered twice; if the task
/// was held up past several boundaries (or the anchor was corrected forward), only the latest one
/// is delivered. While the clock has no anchor, the sequence polls it once per interval. The
/// sequence ends when the consuming task is cancelled.
package struct TrueTimeTicks<SleepClock: Clock>: AsyncSequence, Sendable
where SleepClock.Duration == Swift.Duration {
    /// The elements are ticks.
    package typealias Element = ClockTick
    /// Iteration never throws; cancellation ends the sequence.
    package typealias Failure = Never

    let clock: AnchoredClock
    let interval: Duration
    let sleeper: SleepClock

    /// Makes the iterator.
    package func makeAsyncIterator() -> Iterator {
        Iterator(clock: clock, interval: interval, sleeper: sleeper)
    }

    /// Produces the ticks.
    package struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Iteration never throws.
        package typealias Failure = Never

        let clock: AnchoredClock
        let interval: Duration
        let sleeper: SleepClock
        var lastBoundary: UnixTime?

        /// Waits for and returns the next tick; `nil` once the task is cancelled.
        package mutating func next() async -> ClockTick? {
            while !Task.isCancelled {
                guard let estimate = clock.now() else {
                    guard await sleep(for: interval) else { return nil }
                    continue
                }
                if lastBoundary == nil {
                    // Start as if the boundary before the first one at or after now was delivered.
                    let floor = Self.boundary(atOrBefore: estimate.time, interval: interval)
                    lastBoundary = (floor == estimate.time ? floor : floor + interval) - interval
                }
                let target = nextTarget(at: estimate.time)
                if estimate.time >= target {
                    lastBoundary = target
                    return ClockTick(boundary: target, estimate: estimate)
                }
                // The monotonic clock may run a few ppm fast, so this can wake microseconds early;
                // the loop then sleeps the small remainder.
                guard await sleep(for: target - estimate.time) else { return nil }
            }
            return nil
        }

        /// The boundary to deliver next: the one after the last delivered, or the latest boundary
        /// at or before `now` if that is later (missed boundaries are skipped, not burst).
        func nextTarget(at now: UnixTime) -> UnixTime {
            let floor = Self.boundary(atOrBefore: now, interval: interval)
            guard let lastBoundary else { return floor }
            return Swift.max(lastBoundary + interval, floor)
        }

        /// The latest multiple of `interval` since the epoch that is at or before `time`.
        static func boundary(atOrBefore time: UnixTime, interval: Duration) -> UnixTime {
            let step = interval.attoseconds
            let (quotient, remainder) = time.sinceEpoch.attoseconds.quotientAndRemainder(dividingBy: step)
            let whole = remainder < 0 ? quotient - 1 : quotient
            return UnixTime(sinceEpoch: Duration(attoseconds: whole * step))
        }

        private func sleep(for duration: Duration) async -> Bool {
            do {
                try await sleeper.sleep(until: sleeper.now.advanced(by: duration), tolerance: nil)
                return true
            } catch {
                return false
            }
        }
    }
}

extension AnchoredClock {
    /// The shortest tick interval: one microsecond. Shorter requests are raised to it.
    package static let minimumTickInterval = Duration.microseconds(1)

    /// Ticks on true-time boundaries every `interval` (whole seconds of server time by default),
    /// sleeping on `ContinuousClock` (the boot-time clock on Linux, which wall-clock changes do not
    /// affect).
    package func ticks(every interval: Duration = .seconds(1)) -> TrueTimeTicks<ContinuousClock> {
        ticks(every: interval, sleepingOn: ContinuousClock())
    }

    /// Ticks on true-time boundaries every `interval`, sleeping on `sleeper`; tests pass a clock
    /// whose sleeps advance simulated time instantly.
    package func ticks<SleepClock: Clock>(
        every interval: Duration, sleepingOn sleeper: SleepClock
    ) -> TrueTimeTicks<SleepClock> where SleepClock.Duration == Duration {
        TrueTimeTicks(clock: self, interval: max(interval, Self.minimumTickInterval), sleeper: sleeper)
    }

    /// The true time left until `deadline` by the best estimate (negative once it has passed);
    /// `nil` until synchronized. For a bound, use ``now()`` and
    /// ``TimeEstimate/timeRemaining(until:)`` with its ``TimeEstimate/errorBound``.
    package func timeRemaining(until deadline: UnixTime) -> Duration? {
        now()?.timeRemaining(until: deadline)
    }
}
