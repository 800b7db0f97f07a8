import NetClockPlatform

/// Where an ``AnchoredClock`` reads the kernel's time-discipline state at each update: the real
/// `adjtimex` in production, a fixed or scripted state in tests.
package struct KernelClockReader: Sendable {
    private let body: @Sendable () -> KernelClockState?

    /// A reader that calls `read` at each update; `read` returns `nil` when the state is unknown.
    package init(_ read: @escaping @Sendable () -> KernelClockState?) {
        self.body = read
    }

    /// The state now, or `nil` when it is unknown.
    package func read() -> KernelClockState? { body() }

    /// The running kernel's discipline (`adjtimex`, read-only): what governs `CLOCK_BOOTTIME`.
    package static let system = KernelClockReader { Syscalls.kernelClockState() }

    /// No kernel information: for monotonic clocks the kernel does not discipline (simulated ones),
    /// and for platforms without `adjtimex`. The bound then grows at the configured tolerance.
    package static let unavailable = KernelClockReader { nil }

    /// Always reports `state`.
    package static func fixed(_ state: KernelClockState?) -> KernelClockReader {
        KernelClockReader { state }
    }
}
