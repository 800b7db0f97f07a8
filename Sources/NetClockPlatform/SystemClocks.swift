import TimeValues

/// The kernel's boot-time clock (`CLOCK_BOOTTIME` on Linux): monotonic, counts time spent in
/// suspend, and cannot be set by anyone.
package struct BootTimeClock: MonotonicClock {
    /// Creates a reader of the boot-time clock.
    package init() {}

    /// The current reading of `CLOCK_BOOTTIME`.
    @inline(__always)
    package func now() -> MonotonicInstant {
        MonotonicInstant(sinceOrigin: .nanoseconds(Syscalls.clockNanoseconds(.bootTime)))
    }

    /// The current reading of `CLOCK_BOOTTIME` in whole nanoseconds, for hot paths in this package.
    package static func nanoseconds() -> Int64 {
        Syscalls.clockNanoseconds(.bootTime)
    }
}

/// The kernel's real-time clock (`CLOCK_REALTIME`): the wall clock that `date` shows and users set.
package struct SystemWallClock: WallClock {
    /// Creates a reader of the wall clock.
    package init() {}

    /// The current reading of `CLOCK_REALTIME`.
    @inline(__always)
    package func now() -> UnixTime {
        UnixTime(sinceEpoch: Syscalls.clockTime(.realTime))
    }
}
