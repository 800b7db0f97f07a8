// The calls that change the system clock (`CLOCK_REALTIME`) or its kernel status, one function
// each, for `netclock set`. They need `CAP_SYS_TIME`; without it the kernel answers `EPERM`. They
// go through the C library's symbols (never a raw system call), so a preloaded library can stand in
// for them in tests.

#if canImport(Glibc)
    import CKernelClock
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// Steps `CLOCK_REALTIME` by `offset` in one call: `clock_adjtime` with
    /// `ADJ_SETOFFSET | ADJ_NANO`, a relative step the kernel adds to the clock as it is at that
    /// moment, so no time passes between a reading and the write.
    ///
    /// - Returns: success, or the errno (`EPERM` without `CAP_SYS_TIME`, `ENOTSUP` on Darwin).
    package static func stepRealTimeClock(by offset: Duration) -> Result<Void, Errno> {
        #if canImport(Glibc)
            var timex = CKernelClock.timex()
            timex.modes = UInt32(ADJ_SETOFFSET | ADJ_NANO)
            // The kernel wants tv_usec (nanoseconds under ADJ_NANO) in 0..<1e9: a negative offset is
            // a whole number of seconds below it plus a positive fraction.
            let nanoseconds = offset.attoseconds / 1_000_000_000
            let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
            let (wholeSeconds, positiveFraction) =
                fraction < 0 ? (seconds - 1, fraction + 1_000_000_000) : (seconds, fraction)
            timex.time.tv_sec = Int(wholeSeconds)
            timex.time.tv_usec = Int(positiveFraction)
            return nothingOrErrno(retryOnInterrupt: false) {
                netclock_clock_adjtime(Int32(CLOCK_REALTIME), &timex)
            }
        #else
            return .failure(Errno(rawValue: ENOTSUP))
        #endif
    }

    /// Slews `CLOCK_REALTIME` by `offset` as `adjtime(3)` does: `adjtimex` with
    /// `ADJ_OFFSET_SINGLESHOT` (microseconds), which the kernel spreads at 500 µs per second and
    /// which replaces any single-shot slew still pending.
    ///
    /// - Returns: success, or the errno (`EPERM` without `CAP_SYS_TIME`, `ENOTSUP` on Darwin).
    package static func slewRealTimeClock(by offset: Duration) -> Result<Void, Errno> {
        #if canImport(Glibc)
            var timex = CKernelClock.timex()
            timex.modes = UInt32(ADJ_OFFSET_SINGLESHOT)
            timex.offset = Int(offset.attoseconds / 1_000_000_000_000)
            return nothingOrErrno(retryOnInterrupt: false) { CKernelClock.adjtimex(&timex) }
        #else
            return .failure(Errno(rawValue: ENOTSUP))
        #endif
    }

    /// Tells the kernel how good the clock now is, as time daemons do: `adjtimex` with
    /// `ADJ_MAXERROR | ADJ_ESTERROR | ADJ_STATUS`, the errors in whole microseconds (rounded up),
    /// and the status read just before with `STA_UNSYNC` cleared. The kernel then grows the
    /// maximum error by 500 µs a second, and sets `STA_UNSYNC` again once it passes 16 s.
    ///
    /// - Returns: success, or the errno (`EPERM` without `CAP_SYS_TIME`, `ENOTSUP` on Darwin).
    package static func declareRealTimeClockSynchronized(maximumError: Duration, estimatedError: Duration)
        -> Result<Void, Errno>
    {
        #if canImport(Glibc)
            var current = CKernelClock.timex()
            current.modes = 0
            guard CKernelClock.adjtimex(&current) >= 0 else { return .failure(Errno.current) }
            var timex = CKernelClock.timex()
            timex.modes = UInt32(ADJ_MAXERROR | ADJ_ESTERROR | ADJ_STATUS)
            timex.maxerror = Int(microsecondsRoundedUp(maximumError))
            timex.esterror = Int(microsecondsRoundedUp(estimatedError))
            timex.status = current.status & ~Int32(STA_UNSYNC)
            return nothingOrErrno(retryOnInterrupt: false) { CKernelClock.adjtimex(&timex) }
        #else
            return .failure(Errno(rawValue: ENOTSUP))
        #endif
    }

    /// `duration` in whole microseconds, rounded up (an error is never understated), at least 0.
    package static func microsecondsRoundedUp(_ duration: Duration) -> Int64 {
        guard duration > .zero else { return 0 }
        let (quotient, remainder) = duration.attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000)
        return Int64(clamping: quotient + (remainder > 0 ? 1 : 0))
    }
}
