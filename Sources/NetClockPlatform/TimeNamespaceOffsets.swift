/// The offsets of a Linux time namespace: what its processes' `CLOCK_MONOTONIC` (and the raw and
/// coarse variants) and `CLOCK_BOOTTIME` read beyond the same clocks of the initial namespace, the
/// host's (`unshare --time`, a container restored by checkpoint/restore, LXC). `CLOCK_REALTIME` and
/// the boot id are never shifted. Zero outside a namespace and on kernels without them.
///
/// An instant of one of these clocks means the same in every namespace once its offset is taken
/// off: state kept between processes is stored that way and converted back on reading.
package struct TimeNamespaceOffsets: Sendable, Hashable, CustomStringConvertible {
    /// The offset of `CLOCK_MONOTONIC`, `CLOCK_MONOTONIC_RAW` and `CLOCK_MONOTONIC_COARSE`.
    package var monotonic: Duration
    /// The offset of `CLOCK_BOOTTIME`.
    package var bootTime: Duration

    /// Offsets from their parts.
    package init(monotonic: Duration, bootTime: Duration) {
        self.monotonic = monotonic
        self.bootTime = bootTime
    }

    /// The initial namespace's offsets: none.
    package static let zero = TimeNamespaceOffsets(monotonic: .zero, bootTime: .zero)

    /// The offset of the suspended time as the time base measures it (`CLOCK_BOOTTIME −
    /// CLOCK_MONOTONIC`).
    package var suspended: Duration { bootTime - monotonic }

    /// The opposite offsets: what takes an instant from a namespace back to the host's clocks.
    package var negated: TimeNamespaceOffsets {
        TimeNamespaceOffsets(monotonic: .zero - monotonic, bootTime: .zero - bootTime)
    }

    /// What these offsets became in `other`: `other − self`, per clock (a restored process's
    /// offsets move by minus the time it could not see).
    package func change(to other: TimeNamespaceOffsets) -> TimeNamespaceOffsets {
        TimeNamespaceOffsets(monotonic: other.monotonic - monotonic, bootTime: other.bootTime - bootTime)
    }

    /// `monotonic +5s, boottime +5s`.
    package var description: String {
        "monotonic \(monotonic.signedFormattedSeconds), boottime \(bootTime.signedFormattedSeconds)"
    }

    /// Parses `/proc/PID/timens_offsets`: one line per clock, `monotonic SECONDS NANOSECONDS` and
    /// `boottime SECONDS NANOSECONDS` (seconds signed, nanoseconds in `0..<1_000_000_000`, as the
    /// kernel prints a normalised `timespec`); a clock not listed has no offset. Nil for anything
    /// else.
    package init?(procText text: String) {
        var offsets = TimeNamespaceOffsets.zero
        for line in text.split(whereSeparator: { $0 == "\n" }) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 3, let seconds = Int64(fields[1]), let nanoseconds = Int64(fields[2]),
                (0..<1_000_000_000).contains(nanoseconds), seconds.magnitude < 1 << 40
            else { return nil }
            let offset = Duration.seconds(seconds) + .nanoseconds(nanoseconds)
            switch fields[0] {
            case "monotonic": offsets.monotonic = offset
            case "boottime": offsets.bootTime = offset
            default: return nil
            }
        }
        self = offsets
    }
}
