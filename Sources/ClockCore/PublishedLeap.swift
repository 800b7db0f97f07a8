import TimeValues

/// An anchor's ``LeapSchedule`` as the clock publishes it, precomputed so that ``AnchoredClock/now()``
/// pays one comparison until the leap (or an unknown month end) is near: ``from`` is the earliest
/// POSIX second at which anything applies, and only estimates whose latest time reaches it take
/// ``apply(time:bound:)``.
package struct PublishedLeap: Sendable, Hashable {
    /// The earliest Unix second at which the schedule changes an estimate (`Int64.max`: never).
    var from: Int64
    /// The scheduled leap's midnight (Unix seconds), or `Int64.max` for none.
    var midnight: Int64
    /// Month ends at or before this Unix second are known.
    var knownThrough: Int64
    /// Bit 0: inserted (else deleted) second; bit 1: already applied; bit 2: smear.
    var flags: Int64
    /// The instant reported with the estimate: the scheduled leap's midnight, else the first month
    /// end not known.
    var reportedInstant: Int64
    /// The metadata bits of the report: 16–17 the kind (0 none, 1 insert, 2 delete, 3 unknown),
    /// 18 smear.
    var reportBits: UInt64

    /// Nothing to apply, ever (and nothing to report).
    static let none = PublishedLeap(
        from: .max, midnight: .max, knownThrough: .max, flags: 0, reportedInstant: 0, reportBits: 0)

    init(
        from: Int64, midnight: Int64, knownThrough: Int64, flags: Int64, reportedInstant: Int64,
        reportBits: UInt64
    ) {
        self.from = from
        self.midnight = midnight
        self.knownThrough = knownThrough
        self.flags = flags
        self.reportedInstant = reportedInstant
        self.reportBits = reportBits
    }

    /// The published form of `schedule` for an anchor at `anchorTime`, smeared when `smear`.
    package init(_ schedule: LeapSchedule, anchorTime: UnixTime, smear: Bool) {
        let relative = schedule.relative(to: anchorTime)
        let known = relative.knownThrough ?? .min
        var firstUnknown = LeapSchedule.monthStart(index: LeapSchedule.monthIndex(of: known) + 1)
        if firstUnknown == relative.midnight {
            firstUnknown = LeapSchedule.monthStart(index: LeapSchedule.monthIndex(of: firstUnknown) + 1)
        }
        let lead = smear ? LeapSchedule.halfDay : 0
        var from = firstUnknown - 1 - lead
        var flags: Int64 = smear ? 4 : 0
        var bits: UInt64 = smear ? 1 << 18 : 0
        if let midnight = relative.midnight, let step = relative.stepInstant {
            flags |= (relative.sign > 0 ? 1 : 0) | (relative.applied ? 2 : 0)
            if smear {
                from = min(from, midnight - LeapSchedule.halfDay)
            } else if !relative.applied {
                from = min(from, step)
            }
            bits |= (relative.sign > 0 ? 1 : 2) << 16
            self.midnight = midnight
            self.reportedInstant = midnight
        } else {
            self.midnight = .max
            self.reportedInstant = firstUnknown
            if firstUnknown <= LeapSchedule.monthEnd(after: anchorTime) { bits |= 3 << 16 }
        }
        self.from = from
        self.knownThrough = known
        self.flags = flags
        self.reportBits = bits
    }

    /// One second in attoseconds.
    static let second: Int128 = 1_000_000_000_000_000_000

    /// Whether an estimate at `time` (attoseconds) within `bound` (ns) needs ``apply(time:bound:)``.
    @inline(__always)
    func applies(time: Int128, bound: Int64) -> Bool {
        time &+ Int128(bound) &* 1_000_000_000 >= Int128(from) &* Self.second
    }

    /// The estimate `time` (attoseconds, extrapolated along the anchor's line as if no leap
    /// occurred) within `bound` (ns), with the schedule applied: the step (or the smear) once the
    /// time is past it, 1 s more of bound while the interval straddles a step (either side may be
    /// true), and 1 s more for every month end past ``knownThrough`` the interval may have reached
    /// (an unknown leap of either sign; half a day earlier when smearing).
    func apply(time: Int128, bound: Int64) -> (time: Int128, bound: Int64) {
        var t = time
        var b = bound
        let smear = flags & 4 != 0
        if midnight != .max {
            let sign: Int128 = flags & 1 != 0 ? 1 : -1
            let applied = flags & 2 != 0
            if smear {
                // Linear time (as if no leap had happened), then the 24 h linear smear from noon to
                // noon, over 86,400 + sign SI seconds of linear time.
                let linear = applied ? time &+ sign &* Self.second : time
                let start = Int128(midnight - LeapSchedule.halfDay) &* Self.second
                let width = (86_400 + sign) &* Self.second
                if linear >= start &+ width {
                    t = linear &- sign &* Self.second
                } else if linear > start {
                    let fraction = Double(linear &- start) / Double(width)
                    t = linear &- sign &* Int128((fraction * 1e18).rounded())
                    // The smear is monotone with slope within 1 ± 1/86,399: the bound scales by it.
                    b &+= b / 86_399 &+ 1
                } else {
                    t = linear
                }
            } else if !applied {
                let step = Int128(sign > 0 ? midnight : midnight - 1) &* Self.second
                if time >= step { t = time &- sign &* Self.second }
                let distance = time >= step ? time &- step : step &- time
                if distance <= Int128(bound) &* 1_000_000_000 { b &+= 1_000_000_000 }
            }
        }
        // Unknown month ends the interval may have reached.
        let lead = smear ? LeapSchedule.halfDay : 0
        let latest = (time &+ Int128(bound) &* 1_000_000_000) / Self.second
        let reach = Int64(clamping: latest) &+ 1 &+ lead
        if reach > knownThrough {
            var count = LeapSchedule.monthIndex(of: reach) - LeapSchedule.monthIndex(of: knownThrough)
            if midnight != .max, midnight > knownThrough, midnight <= reach { count -= 1 }
            if count > 0 { b &+= Int64(clamping: count) &* 1_000_000_000 }
        }
        return (t, b)
    }
}
