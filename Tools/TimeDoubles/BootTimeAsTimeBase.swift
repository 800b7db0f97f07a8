import TimeValues
import NetClockPlatform

/// `CLOCK_BOOTTIME` as a plain monotonic clock (not ``BootTimeClock``), so that an
/// ``AnchoredClock`` uses it as its own time base (``ExchangeClockTimeBase``): anchors are then
/// placed exactly, for tests whose expected bounds are exact, instead of at the kernel's possible
/// slew between `CLOCK_BOOTTIME` and the raw oscillator.
package struct BootTimeAsTimeBase: MonotonicClock {
    package init() {}
    package func now() -> MonotonicInstant { BootTimeClock().now() }
}
