import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

/// The anchor file's JSON layout, version 1: the anchor on the exchange clock (`monotonic`) and on
/// the time base (`time_base`), and the frequency history, in exact integer times (seconds and
/// nanoseconds, never floating point). Saving truncates to nanoseconds and widens the bound by a
/// nanosecond per truncated part. The fields and how older files are read: the StateFiles article,
/// "Formats".
struct AnchorFile: Codable, Sendable {
    /// An exact instant or duration: whole seconds (floor) and nanoseconds in `0..<1_000_000_000`.
    struct ExactTime: Codable, Sendable, Equatable {
        var seconds: Int64
        var nanoseconds: Int64

        /// The duration rounded down to a whole nanosecond.
        init(_ duration: Duration) {
            let (nanoseconds, _) = Self.flooredDivision(duration.attoseconds, by: 1_000_000_000)
            let (seconds, fraction) = Self.flooredDivision(nanoseconds, by: 1_000_000_000)
            self.seconds = Int64(truncatingIfNeeded: seconds)
            self.nanoseconds = Int64(truncatingIfNeeded: fraction)
        }

        /// Division rounding toward negative infinity, with a remainder in `0..<divisor`.
        private static func flooredDivision(_ value: Int128, by divisor: Int128) -> (Int128, Int128) {
            let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
            return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
        }

        /// The value as a `Duration`, or `nil` when out of range (nanoseconds outside
        /// `0..<1_000_000_000` or more than 2⁴⁰ seconds, about 34,800 years, from zero).
        var duration: Duration? {
            guard (0..<1_000_000_000).contains(nanoseconds), seconds.magnitude <= 1 << 40 else { return nil }
            return .seconds(seconds) + .nanoseconds(nanoseconds)
        }

        /// Whether `duration` has a part below one nanosecond.
        static func isTruncated(_ duration: Duration) -> Bool {
            duration.attoseconds % 1_000_000_000 != 0
        }
    }

    /// The anchor itself.
    struct AnchorRecord: Codable, Sendable {
        var trueTime: ExactTime
        var monotonic: ExactTime
        var errorBoundNanoseconds: Int64
        var source: String
        var server: String?
        /// Absent in files written before NTS: unauthenticated.
        var authenticated: Bool?
        /// Absent in files written before holdover (see the type's notes).
        var timeBase: TimeBaseRecord?
        /// What the anchor knows about leap seconds; absent in files written before it was kept
        /// (read as nothing known).
        var leap: LeapRecord?

        enum CodingKeys: String, CodingKey {
            case leap
            case trueTime = "true_time"
            case monotonic
            case errorBoundNanoseconds = "error_bound_ns"
            case source
            case server
            case authenticated
            case timeBase = "time_base"
        }
    }

    /// An instant on the time base.
    struct TimeBaseRecord: Codable, Sendable {
        var awake: ExactTime
        var suspended: ExactTime
    }

    /// One sync point of the frequency history.
    struct FrequencyPointRecord: Codable, Sendable {
        var awake: ExactTime
        var suspended: ExactTime
        var trueTime: ExactTime
        var errorBoundNanoseconds: Int64

        enum CodingKeys: String, CodingKey {
            case awake, suspended
            case trueTime = "true_time"
            case errorBoundNanoseconds = "error_bound_ns"
        }
    }

    /// The frequency history and, for people reading the file, the estimate it gave.
    struct FrequencyRecord: Codable, Sendable {
        var frequencyPPM: Double?
        var intervalPPM: [Double]?
        var resets: Int?
        var points: [FrequencyPointRecord]
        /// `[lower, upper]`, in ppm: what an earlier boot measured, widened for the reboot
        /// (`FrequencyTracker.carried`); absent when nothing is carried, and in older files.
        var carriedPPM: [Double]?

        enum CodingKeys: String, CodingKey {
            case frequencyPPM = "frequency_ppm"
            case intervalPPM = "interval_ppm"
            case carriedPPM = "carried_ppm"
            case resets, points
        }
    }

    var version: Int
    var bootID: String
    var writtenAt: ExactTime
    var writtenAtMonotonic: ExactTime
    var anchor: AnchorRecord
    var frequency: FrequencyRecord?
    var timeNamespace: NamespaceRecord?
    /// The machine the file was written on (``AnchorStore/machineTag(_:)``), so that its frequency
    /// is carried across a reboot only on the same oscillator; absent where `/etc/machine-id` could
    /// not be read, and in older files.
    var machine: String?

    enum CodingKeys: String, CodingKey {
        case version, machine
        case bootID = "boot_id"
        case writtenAt = "written_at"
        case writtenAtMonotonic = "written_at_monotonic"
        case anchor
        case frequency
        case timeNamespace = "time_namespace"
    }

    /// Just the version, decoded first so that a future format is reported as such rather than as
    /// corrupt.
    struct VersionProbe: Decodable {
        var version: Int?
    }

    // MARK: Conversions

    /// The bound in nanoseconds, rounded up, plus one nanosecond per truncated component.
    static func boundNanoseconds(_ bound: Duration, truncating components: [Duration]) -> Int64 {
        let extra = components.filter(ExactTime.isTruncated).count
        return bound.nanosecondsRoundedUp + Int64(extra)
    }

    /// The record of an anchor (which must be within its supported range), its time-base instant
    /// and the frequency history.
    init(
        anchor: Anchor, timeBase: TimeBaseInstant?, frequency: FrequencyTracker?, bootID: String,
        writtenAt: UnixTime, writtenAtMonotonic: MonotonicInstant
    ) {
        self.version = AnchorStore.formatVersion
        self.bootID = bootID
        self.writtenAt = ExactTime(writtenAt.sinceEpoch)
        self.writtenAtMonotonic = ExactTime(writtenAtMonotonic.sinceOrigin)
        let base = timeBase.map { [$0.awake, $0.suspended] } ?? []
        self.anchor = AnchorRecord(
            trueTime: ExactTime(anchor.trueTime.sinceEpoch),
            monotonic: ExactTime(anchor.monotonic.sinceOrigin),
            errorBoundNanoseconds: Self.boundNanoseconds(
                anchor.errorBound,
                truncating: [anchor.trueTime.sinceEpoch, anchor.monotonic.sinceOrigin] + base),
            source: anchor.source.rawValue,
            server: anchor.server, authenticated: anchor.isAuthenticated ? true : nil,
            timeBase: timeBase.map {
                TimeBaseRecord(awake: ExactTime($0.awake), suspended: ExactTime($0.suspended))
            },
            leap: anchor.leap == .unknown ? nil : LeapRecord(anchor.leap))
        if let frequency, !frequency.points.isEmpty || frequency.carried != nil {
            let interval = frequency.points.last.map { frequency.interval(at: $0.base) } ?? frequency.carried
            self.frequency = FrequencyRecord(
                frequencyPPM: interval.flatMap { $0.isMeasured ? Self.finite($0.center * 1e6) : nil },
                intervalPPM: interval.flatMap { interval in
                    guard interval.isMeasured, let lower = Self.finite(interval.lower * 1e6),
                        let upper = Self.finite(interval.upper * 1e6)
                    else { return nil }
                    return [lower, upper]
                },
                resets: frequency.resetCount,
                points: frequency.points.map { point in
                    FrequencyPointRecord(
                        awake: ExactTime(point.base.awake), suspended: ExactTime(point.base.suspended),
                        trueTime: ExactTime(point.trueTime.sinceEpoch),
                        errorBoundNanoseconds: Self.boundNanoseconds(
                            point.errorBound,
                            truncating: [point.trueTime.sinceEpoch, point.base.awake, point.base.suspended]))
                },
                carriedPPM: frequency.carried.map { [$0.lower * 1e6, $0.upper * 1e6] })
        } else {
            self.frequency = nil
        }
    }

    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

    /// The largest bound a file may hold: one year.
    static let maximumBoundNanoseconds: Int64 = 366 * 86_400 * 1_000_000_000

    /// The largest frequency history a file may hold.
    static let maximumPoints = 1024
}
