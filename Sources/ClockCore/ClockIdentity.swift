import NetClockPlatform
import TimeValues

/// What the instants an ``AnchoredClock`` holds are measured against: the boot its clocks count
/// from and its time namespace's offsets on them. Under the same boot and offsets an instant means
/// what it meant; under new offsets (a container restored by checkpoint/restore, whose clocks were
/// made to look continuous) it means the same once shifted by their change; under another boot
/// (restored on another machine) it means nothing.
package struct ClockIdentity: Sendable, Hashable {
    /// The boot's identity (`/proc/sys/kernel/random/boot_id`); nil when it cannot be read.
    package var bootID: String?
    /// The time namespace's offsets; nil when they cannot be read.
    package var offsets: TimeNamespaceOffsets?

    /// An identity from its parts.
    package init(bootID: String?, offsets: TimeNamespaceOffsets?) {
        self.bootID = bootID
        self.offsets = offsets
    }

    /// `self` with what `fresh` could read: a value that cannot be read now is taken as unchanged.
    func updated(by fresh: ClockIdentity) -> ClockIdentity {
        ClockIdentity(bootID: fresh.bootID ?? bootID, offsets: fresh.offsets ?? offsets)
    }
}

/// What became of a clock's anchor when the identity of its clocks changed (``ClockIdentity``).
package enum ClockIdentityChange: Sendable, Hashable, CustomStringConvertible {
    /// The time namespace's offsets changed by `change` within the same boot: the process was
    /// frozen and restored (checkpoint/restore), and its clocks were made to look continuous. The
    /// anchor was shifted by the change, so the time its clocks could not see (about minus the
    /// change) counts as elapsed, with the bound's growth over it.
    case shifted(by: TimeNamespaceOffsets)
    /// The process now runs in another boot (restored on another machine, say): its clocks count
    /// from another origin, so the anchor and the frequency history were dropped.
    case otherBoot(was: String, now: String)

    /// A sentence for people.
    package var description: String {
        switch self {
        case .shifted(let change):
            return "the clocks' time namespace moved (\(change)), as after a restore: "
                + "the anchor was carried across the \((.zero - change.bootTime).formattedSeconds) its clocks did not count"
        case .otherBoot(let was, let now):
            return "the process now runs in another boot (boot \(now.prefix(64)), was \(was.prefix(64))), "
                + "as after a restore on another machine: the anchor was dropped; the clock has no time until it syncs"
        }
    }
}

/// Where an ``AnchoredClock`` reads its ``ClockIdentity`` on its slow paths: the kernel's in
/// production, a fixed or scripted one for simulated clocks.
package struct ClockIdentityReader: Sendable {
    private let body: @Sendable () -> ClockIdentity

    /// A reader that calls `read`.
    package init(_ read: @escaping @Sendable () -> ClockIdentity) {
        self.body = read
    }

    /// The identity now.
    package func read() -> ClockIdentity { body() }

    /// The running kernel's boot id and this process's time-namespace offsets.
    package static let system = ClockIdentityReader {
        ClockIdentity(bootID: Syscalls.bootID(), offsets: try? Syscalls.timeNamespaceOffsets().get())
    }

    /// An identity that never changes: for simulated clocks.
    package static let unchanging = fixed(ClockIdentity(bootID: "simulated", offsets: .zero))

    /// Always reports `identity`.
    package static func fixed(_ identity: ClockIdentity) -> ClockIdentityReader {
        ClockIdentityReader { identity }
    }
}
