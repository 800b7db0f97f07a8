#if canImport(Glibc)
    /// What the kernel tells a long-running client about the machine around it, in one wait: the
    /// network changed (``RouteChangeSocket``), the wall clock was set or the machine resumed
    /// (``WallClockSetTimer``), plus a ``SignalPipe`` that wakes the waiter from another thread (to
    /// stop it, or to make it look again). A source the system refuses (a sandbox without netlink or
    /// timerfd) is left out, and ``unavailable`` says why; the wait goes on without it.
    package final class LifecycleNotices: Sendable {
        /// What one wait found.
        package struct Notices: Hashable, Sendable {
            /// An address or a route was added or removed (or announcements were lost).
            package var routesChanged = false
            /// The wall clock's offset from the monotonic clock changed (a set, a leap second or a
            /// resume).
            package var wallClockSet = false

            /// Nothing found.
            package init() {}

            /// Both notices of `self` and `other`.
            package func merged(with other: Notices) -> Notices {
                var merged = self
                merged.routesChanged = routesChanged || other.routesChanged
                merged.wallClockSet = wallClockSet || other.wallClockSet
                return merged
            }
        }

        private let routes: RouteChangeSocket?
        private let timer: WallClockSetTimer?
        private let pipe: SignalPipe
        /// Why a source could not be opened, one line each (empty when both are open).
        package let unavailable: [String]

        /// Opens the sources, on the calling thread: the routes heard are those of its network
        /// namespace.
        /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when the pipe cannot be
        ///   opened.
        package init() throws(TransportError) {
            var unavailable: [String] = []
            do {
                routes = try RouteChangeSocket()
            } catch {
                routes = nil
                unavailable.append("no network change notices: \(error)")
            }
            do {
                timer = try WallClockSetTimer()
            } catch {
                timer = nil
                unavailable.append("no wall-clock set notices: \(error)")
            }
            pipe = try SignalPipe()
            self.unavailable = unavailable
        }

        /// Wakes the waiting thread (from any thread).
        package func signal() {
            pipe.signal()
        }

        /// Waits at most `timeout` (of awake time: `poll` does not count a suspend) for notices or a
        /// ``signal()``, and reads every notice waiting.
        /// - Returns: what was found; nothing when the time ran out or only the signal came.
        /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when `poll` fails.
        package func wait(timeout: Duration) throws(TransportError) -> Notices {
            let descriptors = [routes?.pollDescriptor ?? -1, timer?.pollDescriptor ?? -1, pipe.descriptor]
            let milliseconds = UDPSocket.milliseconds(max(timeout, .zero))
            let ready: [Bool]
            switch Syscalls.pollReadable(descriptors, milliseconds: milliseconds) {
            case .success(let found): ready = found
            case .failure(let code): throw .failed("poll", errno: code)
            }
            var notices = Notices()
            if ready[0], let routes { notices.routesChanged = routes.drain() }
            if ready[1], let timer {
                let outcome = timer.take()
                notices.wallClockSet = outcome == .wallClockSet || outcome == .expired
            }
            if ready[2] { pipe.drain() }
            return notices
        }
    }
#endif
