// The read-only `adjtimex` call behind ``KernelClockState``, kept beside Syscalls.swift under the
// same platform chain.

#if canImport(Glibc)
    import CKernelClock
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// The kernel's time-discipline state, read with `adjtimex` (`modes = 0`, then
    /// `ADJ_OFFSET_SS_READ` for what remains of an `adjtime` slew). Both are read-only and need no
    /// privilege.
    ///
    /// - Returns: the state, or `nil` when it is unknown: on Darwin (no `adjtimex`), or if the
    ///   call fails.
    package static func kernelClockState() -> KernelClockState? {
        #if canImport(Glibc)
            var timex = CKernelClock.timex()
            timex.modes = 0
            let state = CKernelClock.adjtimex(&timex)
            guard state >= 0 else { return nil }
            var singleShot = CKernelClock.timex()
            singleShot.modes = UInt32(ADJ_OFFSET_SS_READ)
            let singleShotOffset: Duration =
                CKernelClock.adjtimex(&singleShot) >= 0 ? .microseconds(Int64(singleShot.offset)) : .zero
            let status = KernelClockStatus(rawValue: timex.status)
            let offset: Duration =
                status.contains(.nanosecondResolution)
                ? .nanoseconds(Int64(timex.offset)) : .microseconds(Int64(timex.offset))
            let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
            let nominalTick: Duration =
                ticksPerSecond > 0 ? .microseconds(1_000_000 / Int64(ticksPerSecond)) : .microseconds(10_000)
            return KernelClockState(
                clockState: state, status: status, offset: offset, singleShotOffset: singleShotOffset,
                frequencyPPM: Double(timex.freq) / 65_536,
                maximumError: .microseconds(Int64(timex.maxerror)),
                estimatedError: .microseconds(Int64(timex.esterror)),
                tick: .microseconds(Int64(timex.tick)), nominalTick: nominalTick)
        #else
            return nil
        #endif
    }
}
