#if os(Linux)
    import NetClockPlatform
    import Synchronization

    /// The thread behind the lifecycle events of a running clock (``ClockEvent/resumed(suspendedFor:)``,
    /// ``ClockEvent/networkChanged``, ``ClockEvent/wallClockStepped(by:)``): it waits on the kernel's
    /// notices (``LifecycleNotices``), reads the clocks (``LifecycleReading``) each time it wakes,
    /// and hands each event to its handler. ``BackgroundRefresh`` starts it and stops it; nothing on
    /// ``NetworkClock/now()``'s path touches it.
    package final class LifecycleMonitor: Sendable {
        /// How long a wait lasts without notices before the clocks are read anyway: a resume is
        /// still seen where the timer is unavailable.
        static let period = Duration.seconds(60)
        /// How long route announcements must pause before a burst counts as one network change.
        static let settle = Duration.milliseconds(50)
        /// The longest a burst is gathered before its change is reported anyway.
        static let longestBurst = Duration.seconds(1)

        private let notices: LifecycleNotices
        private let stopped = Atomic<Bool>(false)

        private init(notices: LifecycleNotices) {
            self.notices = notices
        }

        /// Why a kind of notice is missing (a sandbox that refuses netlink or timerfd), one line each.
        package var unavailable: [String] { notices.unavailable }

        /// Opens the notices on the calling thread (so in its network namespace) and starts the
        /// monitor's thread, which reads `readings` each time it wakes and calls `handler` with each
        /// event; nil when the pipe or the thread cannot be had (then there are no events).
        static func start(
            readings: @escaping @Sendable () -> LifecycleReading,
            handler: @escaping @Sendable (ClockEvent) -> Void
        ) -> LifecycleMonitor? {
            guard let notices = try? LifecycleNotices() else { return nil }
            let monitor = LifecycleMonitor(notices: notices)
            let first = readings()
            let started = Syscalls.startThread(detached: true, stackSize: 256 * 1024) {
                monitor.run(from: first, readings: readings, handler: handler)
            }
            guard case .success = started else { return nil }
            return monitor
        }

        /// Makes the thread read the clocks now, as if the kernel had woken it.
        package func check() {
            notices.signal()
        }

        /// Ends the thread (at once; it closes the notices' descriptors as it ends).
        func stop() {
            stopped.store(true, ordering: .releasing)
            notices.signal()
        }

        private var isStopped: Bool { stopped.load(ordering: .acquiring) }

        private func run(
            from first: LifecycleReading, readings: @Sendable () -> LifecycleReading,
            handler: @Sendable (ClockEvent) -> Void
        ) {
            var previous = first
            while !isStopped {
                guard var found = try? notices.wait(timeout: Self.period) else { return }
                if found.routesChanged { found = found.merged(with: gatherBurst()) }
                if isStopped { return }
                let current = readings()
                let events = current.events(
                    since: previous, wallClockSet: found.wallClockSet, routesChanged: found.routesChanged)
                previous = current
                for event in events { handler(event) }
            }
        }

        /// Reads route announcements until they pause for ``settle`` (or ``longestBurst`` passes):
        /// an interface coming up announces its addresses and routes one after another.
        private func gatherBurst() -> LifecycleNotices.Notices {
            var gathered = LifecycleNotices.Notices()
            let end = Syscalls.clockTime(.bootTime) + Self.longestBurst
            while !isStopped, Syscalls.clockTime(.bootTime) < end {
                guard let more = try? notices.wait(timeout: Self.settle), more != LifecycleNotices.Notices()
                else { break }
                gathered = gathered.merged(with: more)
            }
            return gathered
        }
    }
#endif
