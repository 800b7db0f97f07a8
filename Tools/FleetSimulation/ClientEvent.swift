/// Something that happens to one client's device or app, at a time in seconds since the start of
/// the simulation (true time). Every policy sees the same events.
package struct ClientEvent: Sendable, Hashable, Comparable {
    /// What happens.
    package enum Kind: Sendable, Hashable {
        /// The app's process ends; it was in the foreground until now.
        case exit
        /// The app goes to the background; its process keeps running.
        case background
        /// The device reboots (instantaneously): processes, suspends and same-boot state end.
        case reboot
        /// The device suspends for `duration` seconds and resumes.
        case suspend(duration: Double)
        /// The device's network changes.
        case networkChange
        /// The app starts (a new process) in the foreground.
        case launch
        /// The app, running in the background, comes to the foreground.
        case foreground
    }

    /// When, in seconds since the start.
    package var time: Double
    /// What.
    package var kind: Kind

    /// An event.
    package init(time: Double, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    /// The order of events at the same instant: what ends before what starts.
    private var rank: Int {
        switch kind {
        case .exit: 0
        case .background: 1
        case .reboot: 2
        case .suspend: 3
        case .networkChange: 4
        case .launch: 5
        case .foreground: 6
        }
    }

    /// Earlier first; at the same instant, in the order of ``Kind``'s cases.
    package static func < (lhs: ClientEvent, rhs: ClientEvent) -> Bool {
        lhs.time != rhs.time ? lhs.time < rhs.time : lhs.rank < rhs.rank
    }
}
