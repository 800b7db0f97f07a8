/// What an app's `now()` reads at one instant: the error of its time (time − truth, seconds) and
/// its bound, if the clock gives one.
package struct Reading: Sendable, Hashable {
    /// Time − truth, in seconds.
    package var error: Double
    /// The bound the clock gives with it, in seconds; nil for a clock without one.
    package var bound: Double?
}

/// What `now()` reads over a stretch in which nothing happens, from the instant the stretch
/// starts: the readings at its two ends (between them the error is linear and the bound grows)
/// and how long, in true seconds from the start, the bound stays within the need.
package struct ReadingSpan: Sendable, Hashable {
    /// The reading at the start.
    package var start: Reading
    /// The reading at the end.
    package var end: Reading
    /// For a clock with a bound: how long it stays within the need (nil: not even at the start).
    /// Unused for a clock without one.
    package var boundWithin: Double?
}

/// One refresh policy, as it behaves on one client's device: it reacts to the client's events,
/// asks to act at times of its own (a scheduled sync, a sync's replies), and says what the app's
/// `now()` reads. ``PolicyRun`` drives it.
package protocol FleetPolicy: AnyObject {
    /// The policy's name in the report.
    var name: String { get }
    /// Sets up at the start of the simulation (the device is at 0).
    func begin(in run: PolicyRun)
    /// Reacts to `event`, which just happened (after a suspend, the device has resumed; after a
    /// reboot, it runs the new boot).
    func handle(_ event: ClientEvent.Kind, in run: PolicyRun)
    /// When the policy next wants to act, if ever.
    var nextAction: Double? { get }
    /// Acts: the device is at ``nextAction`` (later, if it was suspended then).
    func act(in run: PolicyRun)
    /// What `now()` reads at this instant; nil when it has no time.
    func reading(in run: PolicyRun) -> Reading?
    /// What `now()` reads over the next `seconds` while nothing happens; nil when it has no time.
    func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan?
}

extension FleetPolicy {
    /// Nothing to set up.
    package func begin(in run: PolicyRun) {}
}
