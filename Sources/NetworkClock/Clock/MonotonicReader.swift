import SNTP
import TimeBase

/// Reads an ``AnchoredClock``'s monotonic source as whole nanoseconds, as cheaply as possible.
///
/// For the production ``BootTimeClock`` it reads `CLOCK_BOOTTIME` as an integer nanosecond count
/// (one multiply-add), without constructing a `Duration` and dividing it back down (which costs
/// about half as much again as the system call).
/// Any other source (a simulated clock in tests) is read through its protocol.
struct MonotonicReader: Sendable {
    /// Whether the source is the kernel's boot-time clock, read directly.
    private let readsBootTime: Bool
    /// The source, read through its protocol unless `readsBootTime`.
    private let source: any MonotonicClock

    /// Chooses the direct path when `source` is the kernel's boot-time clock.
    init(_ source: some MonotonicClock) {
        self.readsBootTime = source is BootTimeClock
        self.source = source
    }

    /// The current reading in whole nanoseconds (truncated; wraps only beyond ±292 years).
    @inline(__always)
    func nanoseconds() -> Int64 {
        guard readsBootTime else { return source.now().sinceOrigin.truncatedNanoseconds }
        return BootTimeClock.nanoseconds()
    }

    /// The current reading as an instant.
    func now() -> MonotonicInstant {
        readsBootTime ? MonotonicInstant(sinceOrigin: .nanoseconds(nanoseconds())) : source.now()
    }
}
