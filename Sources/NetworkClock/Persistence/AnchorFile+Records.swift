import ClockCore
import NetClockPlatform

/// The anchor file's records of what the anchor knows about leap seconds and of the writer's time
/// namespace.
extension AnchorFile {
    /// An anchor's ``LeapSchedule``: the scheduled leap's midnight (Unix seconds) and sign, whether
    /// it is applied, and the Unix second through which month ends are known.
    struct LeapRecord: Codable, Sendable {
        var midnight: Int64?
        var sign: Int64
        var applied: Bool?
        var knownThrough: Int64?

        enum CodingKeys: String, CodingKey {
            case midnight, sign, applied
            case knownThrough = "known_through"
        }

        init(_ schedule: LeapSchedule) {
            midnight = schedule.midnight
            sign = schedule.sign
            applied = schedule.applied ? true : nil
            knownThrough = schedule.knownThrough
        }

        /// The schedule, or nil when a value is out of range (a midnight not at one, a sign not ±1).
        var schedule: LeapSchedule? {
            let limit: Int64 = 1 << 40
            if let midnight, midnight % 86_400 != 0 || midnight.magnitude > limit || sign.magnitude != 1 {
                return nil
            }
            if midnight == nil && sign != 0 { return nil }
            if let knownThrough, knownThrough.magnitude > limit { return nil }
            return LeapSchedule(
                midnight: midnight, sign: sign, applied: applied ?? false, knownThrough: knownThrough)
        }
    }

    /// The writer's time-namespace offsets, for people: the file's monotonic and time-base
    /// instants are on the host's clocks, these offsets taken off. Absent in files written before
    /// (their instants are the writer's own, read as the host's).
    struct NamespaceRecord: Codable, Sendable {
        var monotonic: ExactTime
        var boottime: ExactTime

        init(_ offsets: TimeNamespaceOffsets) {
            monotonic = ExactTime(offsets.monotonic)
            boottime = ExactTime(offsets.bootTime)
        }
    }
}
