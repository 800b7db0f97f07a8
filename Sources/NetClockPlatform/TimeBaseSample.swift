#if canImport(Glibc)
    import CKernelClock
#endif

/// One reading of the clocks a holdover time base is made of, taken together: the exchange clock
/// (`CLOCK_BOOTTIME`), the raw oscillator (`CLOCK_MONOTONIC_RAW`) and the time spent suspended
/// (`CLOCK_BOOTTIME − CLOCK_MONOTONIC`), all in nanoseconds since boot; `awake + suspended` is a
/// time line no daemon can slew (DesignDecisions.md, "Why the raw oscillator"). Read with
/// ``Syscalls/timeBaseSample()``.
package struct TimeBaseSample: Sendable, Hashable {
    /// `CLOCK_BOOTTIME`: the clock NTP exchanges are stamped with.
    package var boot: Int64
    /// `CLOCK_MONOTONIC_RAW`: elapsed awake time on the undisciplined oscillator.
    package var awake: Int64
    /// `CLOCK_BOOTTIME − CLOCK_MONOTONIC`: time spent suspended since boot.
    package var suspended: Int64
    /// How far apart the readings may lie, in nanoseconds: `boot`, `awake` and the instant of
    /// `suspended` are within this of one another.
    package var uncertainty: Int64
    /// ``Syscalls/suspendEpoch()`` throughout the reading: while it is unchanged, `suspended` is too.
    package var epoch: Int64

    /// Creates a sample from its parts.
    package init(boot: Int64, awake: Int64, suspended: Int64, uncertainty: Int64, epoch: Int64) {
        self.boot = boot
        self.awake = awake
        self.suspended = suspended
        self.uncertainty = uncertainty
        self.epoch = epoch
    }
}

extension Syscalls {
    /// `CLOCK_MONOTONIC_COARSE − CLOCK_REALTIME_COARSE`: the kernel's wall-to-monotonic offset, an
    /// exact integer read in a few nanoseconds without the hardware counter.
    ///
    /// Both coarse clocks are set from the same timekeeper update, so their difference changes only
    /// when the offset does: when the wall clock is set or stepped, at a leap second, and on every
    /// resume from suspend (the kernel adds the suspended time to the wall clock and subtracts it
    /// from the offset, `__timekeeping_inject_sleeptime`). Slewing moves both clocks alike. A read
    /// that straddles a timer tick can see a different value once; callers treat any change as
    /// "re-read the suspended time", which is always correct. Always 0 on Darwin.
    @inline(__always)
    package static func suspendEpoch() -> Int64 {
        #if canImport(Glibc)
            let wall = timeBaseClock(.realTimeCoarse)
            return timeBaseClock(.monotonicCoarse) &- wall
        #else
            return 0
        #endif
    }

    /// The least `CLOCK_BOOTTIME − CLOCK_MONOTONIC` can read in this process's time namespace, in
    /// nanoseconds: 0 outside one, its boot-time offset less its monotonic offset inside one (read
    /// once; a restore keeps these clocks continuous, so the value it started with stays a floor);
    /// `Int64.min` (no floor) when the offsets cannot be read.
    static let suspendedFloor: Int64 = {
        switch timeNamespaceOffsets() {
        case .success(let offsets):
            return Int64(truncatingIfNeeded: offsets.suspended.attoseconds / 1_000_000_000)
        case .failure: return .min
        }
    }()

    /// A clock of the time base, read through the same function as the hot path reads it (the
    /// vDSO's `clock_gettime` where it can be found).
    @inline(__always)
    static func timeBaseClock(_ id: ClockID) -> Int64 {
        #if canImport(Glibc)
            netclock_clock_nanoseconds(Int32(id.raw))
        #else
            clockNanoseconds(id)
        #endif
    }

    /// `CLOCK_MONOTONIC_RAW` in whole nanoseconds, then ``suspendEpoch()`` (in that order: a
    /// resume between the two changes the epoch, so a raw reading taken before a resume is never
    /// paired with the epoch from before it). Inlinable, so that an anchored clock's `now()` calls
    /// the vDSO itself, through no wrapper function.
    @inlinable @inline(__always)
    package static func awakeNanosecondsAndSuspendEpoch() -> (awake: Int64, epoch: Int64) {
        #if canImport(Glibc)
            let reading = netclock_raw_and_suspend_epoch()
            return (reading.awake, reading.epoch)
        #else
            return (clockNanoseconds(.monotonicRaw), 0)
        #endif
    }

    /// Reads ``TimeBaseSample``: the suspend epoch, `CLOCK_MONOTONIC`, `CLOCK_BOOTTIME`,
    /// `CLOCK_MONOTONIC_RAW`, `CLOCK_MONOTONIC` again and the epoch again, keeping the tightest of
    /// up to four attempts whose two epoch reads agree (a resume or a wall-clock step in between
    /// would change it). The suspended time is `CLOCK_BOOTTIME` minus the mean of the two
    /// `CLOCK_MONOTONIC` reads, within half their spread; the sample's uncertainty is the whole
    /// spread. Darwin has no raw clock that differs from its monotonic clock: `awake` is
    /// `CLOCK_MONOTONIC` there, `suspended` is 0.
    package static func timeBaseSample() -> TimeBaseSample {
        var best: TimeBaseSample?
        var unsettled: TimeBaseSample?
        for _ in 0..<4 {
            let before = suspendEpoch()
            // CLOCK_BOOTTIME and CLOCK_MONOTONIC through the C library, as the exchange clock is
            // read (so a tool that shifts them, such as libfaketime, shifts both alike); the raw
            // oscillator and the epoch as the hot path reads them.
            let first = clockNanoseconds(.monotonic)
            let boot = clockNanoseconds(.bootTime)
            let awake = timeBaseClock(.monotonicRaw)
            let second = clockNanoseconds(.monotonic)
            let after = suspendEpoch()
            let spread = max(0, second &- first)
            #if canImport(Glibc)
                // The kernel's boot offset is never negative (in a time namespace, never below its
                // boot-time offset less its monotonic one); the pairing can make it look so.
                let suspended = max(suspendedFloor, boot &- (first &+ spread / 2))
            #else
                let suspended: Int64 = 0
            #endif
            guard before == after else {
                // A resume or a wall-clock step happened during this attempt. Tagged with the
                // earlier epoch, such a sample can only make later readers re-read.
                unsettled = TimeBaseSample(
                    boot: boot, awake: awake, suspended: suspended, uncertainty: spread + 1, epoch: before)
                continue
            }
            let sample = TimeBaseSample(
                boot: boot, awake: awake, suspended: suspended, uncertainty: spread + 1, epoch: after)
            if let current = best, current.epoch == after, current.uncertainty <= sample.uncertainty {
                continue
            }
            best = sample
            if spread < 200 { break }
        }
        // Every attempt stores one of the two, so the last fallback is never reached.
        return best ?? unsettled ?? TimeBaseSample(boot: 0, awake: 0, suspended: 0, uncertainty: 0, epoch: 0)
    }
}
