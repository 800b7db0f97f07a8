import ClockCore
import SNTP
import TimeValues

extension NetworkClock {
    /// Creates a clock on simulated clocks (``ClockHardware/simulated(monotonic:wall:kernel:timeBase:)``)
    /// with an injected nonce source and refresh clock, for tests.
    package convenience init(
        configuration: Configuration,
        monotonic: some MonotonicClock,
        wall: some WallClock,
        nonces: some NonceSource = SystemNonceSource(),
        refreshClock: some Clock<Duration> = ContinuousClock(),
        kernel: KernelClockReader = .unavailable,
        timeBase: (any TimeBaseClock)? = nil,
        identity: ClockIdentityReader = .unchanging
    ) {
        self.init(
            configuration: configuration,
            hardware: .simulated(
                monotonic: monotonic, wall: wall, kernel: kernel, timeBase: timeBase, identity: identity),
            nonces: nonces, refreshClock: refreshClock)
    }
}
