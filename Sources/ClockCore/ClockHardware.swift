import NetClockPlatform
import TimeValues

/// The clocks an ``AnchoredClock`` reads, chosen once by whoever creates it: the kernel's own in
/// production (``system``), simulated ones in tests and benchmarks
/// (``simulated(monotonic:wall:kernel:timeBase:)``). The clock never inspects their types: the
/// kernel's fast reading paths are taken exactly when this value says the clocks are the kernel's.
package struct ClockHardware: Sendable {
    /// The exchange clock that anchors, NTP and HTTP exchanges are stamped with.
    package let exchange: any MonotonicClock
    /// The system wall clock, used only to report offsets, never to tell time.
    package let wall: any WallClock
    /// The holdover time base the clock extrapolates on.
    package let timeBase: any TimeBaseClock
    /// Where the kernel's time discipline is read at each update (see ``KernelDiscipline``).
    package let kernel: KernelClockReader
    /// Where the boot id and the time namespace's offsets are read on slow paths
    /// (``ClockIdentity``).
    package let identity: ClockIdentityReader
    /// Whether the exchange clock is `CLOCK_BOOTTIME` and the time base ``SystemTimeBase``, read
    /// through the direct system calls rather than through their protocols.
    let readsKernelClocks: Bool

    /// The kernel's clocks: `CLOCK_BOOTTIME` for exchanges, ``SystemTimeBase`` (the raw oscillator
    /// plus suspended time) to extrapolate on, the kernel's discipline, and `CLOCK_REALTIME`.
    package static let system = ClockHardware(
        exchange: BootTimeClock(), wall: SystemWallClock(), timeBase: SystemTimeBase(), kernel: .system,
        identity: .system, readsKernelClocks: true)

    /// Simulated clocks: `monotonic` for exchanges, `wall` for offsets, `kernel` for the
    /// discipline (none by default), `timeBase` to extrapolate on (`monotonic` itself, through
    /// ``ExchangeClockTimeBase``, by default) and `identity` for the boot and time namespace (one
    /// that never changes by default).
    package static func simulated(
        monotonic: some MonotonicClock, wall: some WallClock,
        kernel: KernelClockReader = .unavailable, timeBase: (any TimeBaseClock)? = nil,
        identity: ClockIdentityReader = .unchanging
    ) -> ClockHardware {
        ClockHardware(
            exchange: monotonic, wall: wall, timeBase: timeBase ?? ExchangeClockTimeBase(monotonic),
            kernel: kernel, identity: identity, readsKernelClocks: false)
    }
}
