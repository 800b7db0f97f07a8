import ClockCore

// The clock's value types that NetworkClock's API speaks in, defined once in ClockCore (the clock
// layer, which knows nothing of the facade) and named here so that `import NetworkClock` is all an
// app needs.

/// The true time as the clock knows it at one moment: a best estimate and a bound on its error.
/// See `ClockCore.TimeEstimate`.
public typealias TimeEstimate = ClockCore.TimeEstimate

/// Where the clock's current time came from. See `ClockCore.TimeSource`.
public typealias TimeSource = ClockCore.TimeSource

/// One tick of ``NetworkClock/ticks(every:)``: a true-time interval boundary and the clock's
/// estimate when the tick was delivered. See `ClockCore.ClockTick`.
public typealias ClockTick = ClockCore.ClockTick

extension NetworkClock {
    /// How the clock learns its oscillator's frequency from successive syncs and how it grows the
    /// error bound between them (holdover). See `ClockCore.ClockPolicy`.
    public typealias ClockPolicy = ClockCore.ClockPolicy
}
