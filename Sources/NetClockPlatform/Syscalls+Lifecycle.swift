// The calls behind the lifecycle notices (``LifecycleNotices``): an rtnetlink socket for address and
// route changes, and a `CLOCK_REALTIME` timerfd that the kernel cancels when the wall clock is set.
// Linux only; kept beside Syscalls.swift, under the same platform chain.

#if canImport(Glibc)
    import CKernelClock
    import Glibc

    extension Errno {
        /// `ECANCELED`: a `TFD_TIMER_CANCEL_ON_SET` timer's clock was set.
        package static var canceled: Errno { Errno(rawValue: ECANCELED) }
        /// `ENOBUFS`: a netlink socket's receive buffer overflowed, and announcements were lost.
        package static var noBufferSpace: Errno { Errno(rawValue: ENOBUFS) }
    }

    extension Syscalls {
        /// Opens a non-blocking, close-on-exec `NETLINK_ROUTE` socket and binds it to the multicast
        /// `groups` (`RTMGRP_*`): the descriptor, or the errno of `socket` or `bind`. A client socket:
        /// it only hears what the kernel announces to every listener.
        static func routeSocket(groups: UInt32) -> Result<Int32, Errno> {
            let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            let opened = valueOrErrno {
                Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | flags, NETLINK_ROUTE)
            }
            guard case .success(let fd) = opened else { return opened }
            var address = sockaddr_nl()
            address.nl_family = sa_family_t(AF_NETLINK)
            address.nl_groups = groups
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    nothingOrErrno { bind(fd, generic, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
                }
            }
            if case .failure(let code) = bound {
                close(fd)
                return .failure(code)
            }
            return .success(fd)
        }

        /// Opens a non-blocking, close-on-exec timerfd on `CLOCK_REALTIME`.
        static func wallClockTimer() -> Result<Int32, Errno> {
            valueOrErrno { timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) }
        }

        /// Arms `fd` (a `CLOCK_REALTIME` timerfd) to expire at the end of time, cancelled whenever
        /// the clock is set (`TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET`): it never expires, it only
        /// tells of a set.
        static func armCancelOnSet(_ fd: Int32) -> Result<Void, Errno> {
            var value = itimerspec()
            value.it_value.tv_sec = Int.max
            let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
            return nothingOrErrno { timerfd_settime(fd, flags, &value, nil) }
        }

        /// Whether the timerfd `fd` is armed (its expiry is not zero), or the errno.
        static func isTimerArmed(_ fd: Int32) -> Result<Bool, Errno> {
            var value = itimerspec()
            return nothingOrErrno { timerfd_gettime(fd, &value) }.map {
                value.it_value.tv_sec != 0 || value.it_value.tv_nsec != 0
            }
        }

        /// Reads a timerfd without blocking: its expiry count, or the errno (`ECANCELED` when the
        /// clock was set, ``Errno/wouldBlock`` when nothing happened).
        static func readTimer(_ fd: Int32) -> Result<UInt64, Errno> {
            var count: UInt64 = 0
            let size = MemoryLayout<UInt64>.size
            return valueOrErrno { Glibc.read(fd, &count, size) }.map { read in read == size ? count : 0 }
        }
    }
#endif
