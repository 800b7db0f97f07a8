import NetClockPlatform

/// A clock that only moves forward at a steady rate and that users cannot set.
///
/// NetworkClock anchors true time to this clock. Production code uses ``BootTimeClock``; tests inject
/// simulated clocks, for example one that runs fast by a chosen number of parts per million.
package protocol MonotonicClock: Sendable {
    /// The current reading.
    func now() -> MonotonicInstant
}

/// The system's wall clock: what the machine believes the time is, which a user may change at will.
package protocol WallClock: Sendable {
    /// The current reading.
    func now() -> UnixTime
}

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
