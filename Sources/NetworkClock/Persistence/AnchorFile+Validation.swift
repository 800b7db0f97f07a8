import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

/// Reading an anchor file's values back: every value in range, or a sentence saying which is not
/// (the StateFiles article, "Formats").
extension AnchorFile {
    /// The widest a carried interval may be, in ppm either side of zero: the most any policy's
    /// prior tolerance can be (``ClockPolicy/priorTolerancePPM`` is clamped to it).
    static let maximumCarriedPPM = 1000.0

    /// What a valid file holds.
    struct Contents: Sendable {
        var anchor: Anchor
        var timeBase: TimeBaseInstant?
        var points: [FrequencyTracker.Point]
        /// `carried_ppm` as fractions.
        var carried: ClosedRange<Double>?
        var writtenAt: UnixTime
        var writtenAtMonotonic: MonotonicInstant
    }

    /// The anchor, its time-base instant and the frequency history, or a sentence saying which
    /// value is out of range.
    func validated() -> Result<Contents, ValidationFailure> {
        guard !bootID.isEmpty, bootID.count <= 256 else { return .failure("boot_id is empty or too long") }
        guard let writtenAt = writtenAt.duration, let writtenAtMonotonic = writtenAtMonotonic.duration else {
            return .failure("written_at is out of range")
        }
        guard let source = TimeSource(rawValue: anchor.source) else {
            return .failure(ValidationFailure("unknown source \"\(anchor.source.prefix(32))\""))
        }
        guard anchor.server.map({ $0.utf8.count <= 1024 }) ?? true else {
            return .failure("server is too long")
        }
        guard let monotonic = anchor.monotonic.duration, let trueTime = anchor.trueTime.duration,
            (0...Self.maximumBoundNanoseconds).contains(anchor.errorBoundNanoseconds)
        else {
            return .failure("anchor time, monotonic instant or error bound is out of range")
        }
        var restored = Anchor(
            trueTime: UnixTime(sinceEpoch: trueTime), monotonic: MonotonicInstant(sinceOrigin: monotonic),
            errorBound: .nanoseconds(anchor.errorBoundNanoseconds), source: source,
            server: anchor.server, isAuthenticated: anchor.authenticated ?? false)
        if let record = anchor.leap {
            guard let schedule = record.schedule else {
                return .failure("the anchor's leap second is out of range")
            }
            restored.leap = schedule
        }
        guard restored.isWithinSupportedRange else {
            return .failure("anchor time, monotonic instant or error bound is out of range")
        }
        var timeBase: TimeBaseInstant?
        if let record = anchor.timeBase {
            guard let base = Self.instant(record.awake, record.suspended) else {
                return .failure("the anchor's time-base instant is out of range")
            }
            timeBase = base
        }
        guard machine.map({ $0.utf8.count <= 256 }) ?? true else { return .failure("machine is too long") }
        var points = [FrequencyTracker.Point]()
        var carried: ClosedRange<Double>?
        if let frequency {
            if let record = frequency.carriedPPM {
                // Used, not informational: refused like any other value out of range.
                let limit = Self.maximumCarriedPPM
                guard record.count == 2, record.allSatisfy({ $0.isFinite && abs($0) <= limit }),
                    record[0] <= record[1]
                else { return .failure("the carried frequency interval is out of range") }
                carried = (record[0] / 1e6)...(record[1] / 1e6)
            }
            guard frequency.points.count <= Self.maximumPoints else {
                return .failure("frequency history is too long")
            }
            for entry in frequency.points {
                guard let base = Self.instant(entry.awake, entry.suspended),
                    let trueTime = entry.trueTime.duration,
                    (0...Self.maximumBoundNanoseconds).contains(entry.errorBoundNanoseconds)
                else {
                    return .failure("a frequency point is out of range")
                }
                let point = FrequencyTracker.Point(
                    base: base, trueTime: UnixTime(sinceEpoch: trueTime),
                    errorBound: .nanoseconds(entry.errorBoundNanoseconds))
                guard point.isValid else { return .failure("a frequency point is out of range") }
                points.append(point)
            }
        }
        return .success(
            Contents(
                anchor: restored, timeBase: timeBase, points: points, carried: carried,
                writtenAt: UnixTime(sinceEpoch: writtenAt),
                writtenAtMonotonic: MonotonicInstant(sinceOrigin: writtenAtMonotonic)))
    }

    /// A time-base instant from its records: both parts in range, neither negative.
    private static func instant(_ awake: ExactTime, _ suspended: ExactTime) -> TimeBaseInstant? {
        guard let awake = awake.duration, let suspended = suspended.duration, awake >= .zero,
            suspended >= .zero
        else { return nil }
        return TimeBaseInstant(awake: awake, suspended: suspended)
    }

    /// A reason a file's values were refused.
    struct ValidationFailure: Error, ExpressibleByStringLiteral {
        var reason: String
        init(stringLiteral reason: String) { self.reason = reason }
        init(_ reason: String) { self.reason = reason }
    }
}
