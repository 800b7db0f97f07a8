import NetClockPlatform
import TimeValues

/// The system clock (`CLOCK_REALTIME`) as `netclock set` changes it: a
/// ``NetworkClock/SystemClockDecision`` applied with one call of the platform shim each (step, slew,
/// kernel status). Every call needs `CAP_SYS_TIME`.
extension NetworkClock {
    /// Applies `decision`: a step (`clock_adjtime`, `ADJ_SETOFFSET`; a single-shot slew still
    /// pending is cancelled first) or a slew (single-shot `adjtimex`, which replaces a pending
    /// one), then the kernel's maximum and estimated error from the bound with
    /// `STA_UNSYNC` cleared. For ``SystemClockDecision/Action/none`` only that status call (a clock
    /// that needed no correction is as synchronised as a corrected one), unless another discipline
    /// owns the clock (``SystemClockDecision/declaredMaximumError`` is nil); nothing for
    /// ``SystemClockDecision/Action/refused``.
    ///
    /// - Throws: ``SystemClockRefusal/Code/notPermitted`` when the kernel answers `EPERM`,
    ///   ``SystemClockRefusal/Code/setFailed`` for any other failure.
    public static func applyToSystemClock(_ decision: SystemClockDecision) throws(SystemClockRefusal) {
        let change: Result<Void, Errno>
        switch decision.action {
        case .refused: return
        case .none: change = .success(())
        case .step:
            // A single-shot slew still pending (an earlier `set`'s) would go on moving the clock
            // after the step: it is cancelled first (a slew of zero replaces it).
            if let state = Syscalls.kernelClockState(), state.singleShotOffset != .zero,
                case .failure(let error) = Syscalls.slewRealTimeClock(by: .zero)
            {
                throw systemClockRefusal(error, doing: "cancel the pending slew before the step")
            }
            change = Syscalls.stepRealTimeClock(by: decision.correction)
        case .slew: change = Syscalls.slewRealTimeClock(by: decision.correction)
        }
        if case .failure(let error) = change {
            throw systemClockRefusal(error, doing: "\(decision.action) the system clock")
        }
        guard let maximumError = decision.declaredMaximumError else { return }
        if case .failure(let error) = Syscalls.declareRealTimeClockSynchronized(
            maximumError: maximumError, estimatedError: maximumError)
        {
            let done = decision.action == .none ? "needed no correction" : "was corrected"
            throw systemClockRefusal(error, doing: "set the kernel's clock status (the clock \(done))")
        }
    }

    /// Reads the system clock (`CLOCK_REALTIME`) now.
    public static func systemClockNow() -> UnixTime { SystemWallClock().now() }

    /// The kernel's discipline of the system clock (`adjtimex`: status, frequency, maximum and
    /// estimated error, a pending slew), as `netclock now` reports it; nil where it cannot be read.
    package static func systemClockState() -> KernelClockState? { Syscalls.kernelClockState() }

    /// The refusal for a failed call: `not_permitted` for `EPERM`, naming the capability and how
    /// to grant it.
    static func systemClockRefusal(_ error: Errno, doing what: String) -> SystemClockRefusal {
        guard error == .notPermitted else {
            return SystemClockRefusal(.setFailed, "cannot \(what): \(error)")
        }
        return SystemClockRefusal(
            .notPermitted,
            "cannot \(what): the kernel refused (EPERM); changing the clock needs the CAP_SYS_TIME capability: "
                + "run as root with it (a container needs --cap-add SYS_TIME), give a systemd unit "
                + "AmbientCapabilities=CAP_SYS_TIME, or give the binary the file capability "
                + "(setcap cap_sys_time+ep netclock)")
    }
}
