#if canImport(Glibc)
    /// A `CLOCK_REALTIME` timerfd armed with `TFD_TIMER_CANCEL_ON_SET`: it never expires, and the
    /// kernel cancels it whenever the wall clock's offset from the monotonic clock changes — when
    /// anyone sets the clock (a user, a time daemon, `netclock set`), at a leap second, and on every
    /// resume from suspend. It says *that* the offset changed, not why: the caller tells these apart
    /// (``LifecycleNotices``'s user reads `CLOCK_BOOTTIME − CLOCK_MONOTONIC`).
    package final class WallClockSetTimer: Sendable {
        /// What a read of the timer found.
        package enum Outcome: Hashable, Sendable {
            /// Nothing happened (`EAGAIN`).
            case nothing
            /// The wall clock was set (`ECANCELED`).
            case wallClockSet
            /// The timer expired: the wall clock was set beyond the kernel's end of time, which is a
            /// set too.
            case expired
            /// The read failed otherwise.
            case failed(Errno)
        }

        private let descriptor: FileDescriptor

        /// Creates and arms the timer.
        /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `timerfd_create`
        ///   or `timerfd_settime`.
        package init() throws(TransportError) {
            switch Syscalls.wallClockTimer() {
            case .success(let fd): descriptor = FileDescriptor(taking: fd)
            case .failure(let code): throw .failed("timerfd_create", errno: code)
            }
            if case .failure(let code) = Syscalls.armCancelOnSet(descriptor.rawValue) {
                throw .failed("timerfd_settime", errno: code)
            }
        }

        /// The descriptor a waiter polls.
        var pollDescriptor: Int32 { descriptor.rawValue }

        /// Whether the timer is armed (the kernel reports a pending expiry).
        package var isArmed: Bool {
            (try? Syscalls.isTimerArmed(descriptor.rawValue).get()) ?? false
        }

        /// Reads the timer without blocking, and arms it again after a set or an expiry.
        package func take() -> Outcome {
            let outcome = Self.outcome(ofRead: Syscalls.readTimer(descriptor.rawValue))
            if outcome == .wallClockSet || outcome == .expired {
                _ = Syscalls.armCancelOnSet(descriptor.rawValue)
            }
            return outcome
        }

        /// What a read's result means: `ECANCELED` is a set, `EAGAIN` nothing, a count an expiry.
        package static func outcome(ofRead result: Result<UInt64, Errno>) -> Outcome {
            switch result {
            case .success(let expiries): expiries > 0 ? .expired : .nothing
            case .failure(.canceled): .wallClockSet
            case .failure(.wouldBlock), .failure(.interrupted): .nothing
            case .failure(let code): .failed(code)
            }
        }
    }
#endif
