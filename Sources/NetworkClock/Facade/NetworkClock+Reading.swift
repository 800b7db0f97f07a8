import ClockCore
import SNTP
import TimeValues

/// Reading the clock: lock-free answers from the anchor, never from the network.
extension NetworkClock {
    /// The time floor: the least the true time was proven to be by authenticated time (loaded
    /// from the store, raised by every authenticated sync); nil when none is known.
    public var timeFloor: UnixTime? { files.floorValue }

    /// The true time now with its error bound; nil until the first sync (or a restored anchor).
    /// Lock-free and allocation-free.
    @inline(__always)
    public func now() -> TimeEstimate? {
        clock.now()
    }

    /// What the clock knows about its oscillator's frequency now (for the CLI's JSON).
    package func frequency() -> FrequencyEstimate {
        clock.frequency()
    }

    /// The time left until a true-time deadline (negative once passed), from the anchor; nil until
    /// synchronised. Unaffected by wall-clock changes.
    public func timeRemaining(until deadline: UnixTime) -> Duration? {
        clock.now()?.timeRemaining(until: deadline)
    }

    /// Ticks on true-time boundaries every `interval` (whole seconds of true time by default):
    /// each tick comes when the anchored clock passes the next multiple of `interval`, whatever the
    /// wall clock says, so a countdown shown from it never drifts. Nothing is produced until the
    /// clock has an anchor. Sleeps on the boot-time clock, which wall-clock changes do not affect.
    ///
    /// ```swift
    /// for await tick in clock.ticks(every: .seconds(1)) {
    ///     print(tick.boundary, "remaining:", tick.estimate.timeRemaining(until: saleEnds))
    /// }
    /// ```
    public func ticks(every interval: Duration = .seconds(1)) -> some AsyncSequence<ClockTick, Never> {
        clock.ticks(every: interval)
    }

    /// A stream of everything that happens from now on: syncs, rejected sources, falsetickers,
    /// Kiss-o'-Death, backoff, store problems. Each call returns a new independent stream.
    public func events() -> AsyncStream<ClockEvent> {
        broadcaster.subscribe()
    }
}
