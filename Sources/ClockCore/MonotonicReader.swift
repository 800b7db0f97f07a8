import TimeValues
import NetClockPlatform

/// Reads an ``AnchoredClock``'s monotonic source as whole nanoseconds, as cheaply as possible.
///
/// With the kernel's clocks (``ClockHardware/system``) it reads `CLOCK_BOOTTIME` as an integer
/// nanosecond count (one multiply-add), without constructing a `Duration` and dividing it back
/// down (which costs about half as much again as the system call). A simulated clock is read
/// through its protocol.
package struct MonotonicReader: Sendable {
    /// Whether the source is the kernel's boot-time clock, read directly.
    private let readsBootTime: Bool
    /// The source, read through its protocol unless `readsBootTime`.
    private let source: any MonotonicClock

    /// Reads `hardware`'s exchange clock, directly when it is the kernel's.
    init(_ hardware: ClockHardware) {
        self.readsBootTime = hardware.readsKernelClocks
        self.source = hardware.exchange
    }

    /// The current reading in whole nanoseconds (truncated; wraps only beyond ±292 years).
    @inline(__always)
    func nanoseconds() -> Int64 {
        guard readsBootTime else { return source.now().sinceOrigin.truncatedNanoseconds }
        return BootTimeClock.nanoseconds()
    }

    /// The current reading as an instant.
    package func now() -> MonotonicInstant {
        readsBootTime ? MonotonicInstant(sinceOrigin: .nanoseconds(nanoseconds())) : source.now()
    }
}

/// A reader is a monotonic clock too, so its readings pair with the wall clock's (`TimeMapping`).
extension MonotonicReader: MonotonicClock {}
