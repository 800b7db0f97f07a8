import SNTP

/// The anchor file's JSON layout, version 1.
///
/// Times are exact integers (seconds and nanoseconds), never floating point. Truncating to
/// nanoseconds when saving can shift an anchor by under a nanosecond per component; the saved bound
/// grows by a nanosecond for each component that was truncated, so it stays sound.
///
/// ```json
/// { "version": 1, "boot_id": "…", "written_at": {"seconds": …, "nanoseconds": …},
///   "written_at_monotonic": {…},
///   "anchor": { "true_time": {…}, "monotonic": {…}, "error_bound_ns": 12000000,
///               "source": "ntp", "server": "time.example.com" },
///   "drift": { "frequency_error_ppm": 3.2, "uncertainty_ppm": 4.1, "points": [ … ] } }
/// ```
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

        enum CodingKeys: String, CodingKey {
            case trueTime = "true_time"
            case monotonic
            case errorBoundNanoseconds = "error_bound_ns"
            case source
            case server
            case authenticated
        }
    }

    /// One sync point of the drift history.
    struct PointRecord: Codable, Sendable {
        var monotonic: ExactTime
        var trueTime: ExactTime
        var errorBoundNanoseconds: Int64

        enum CodingKeys: String, CodingKey {
            case monotonic
            case trueTime = "true_time"
            case errorBoundNanoseconds = "error_bound_ns"
        }
    }

    /// The drift history and, for people reading the file, the estimate it gave.
    struct DriftRecord: Codable, Sendable {
        var frequencyErrorPPM: Double?
        var uncertaintyPPM: Double?
        var points: [PointRecord]

        enum CodingKeys: String, CodingKey {
            case frequencyErrorPPM = "frequency_error_ppm"
            case uncertaintyPPM = "uncertainty_ppm"
            case points
        }
    }

    var version: Int
    var bootID: String
    var writtenAt: ExactTime
    var writtenAtMonotonic: ExactTime
    var anchor: AnchorRecord
    var drift: DriftRecord?

    enum CodingKeys: String, CodingKey {
        case version
        case bootID = "boot_id"
        case writtenAt = "written_at"
        case writtenAtMonotonic = "written_at_monotonic"
        case anchor
        case drift
    }

    /// Just the version, decoded first so that a future format is reported as such rather than as
    /// corrupt.
    struct VersionProbe: Decodable {
        var version: Int?
    }

    // MARK: Conversions

    /// The bound in nanoseconds, rounded up, plus one nanosecond per truncated component.
    static func boundNanoseconds(_ bound: Duration, truncating components: Duration...) -> Int64 {
        let extra = components.filter(ExactTime.isTruncated).count
        return bound.nanosecondsRoundedUp + Int64(extra)
    }

    /// The record of an anchor (which must be within its supported range).
    init(
        anchor: Anchor, drift: DriftEstimator?, bootID: String, writtenAt: UnixTime,
        writtenAtMonotonic: MonotonicInstant
    ) {
        self.version = AnchorStore.formatVersion
        self.bootID = bootID
        self.writtenAt = ExactTime(writtenAt.sinceEpoch)
        self.writtenAtMonotonic = ExactTime(writtenAtMonotonic.sinceOrigin)
        self.anchor = AnchorRecord(
            trueTime: ExactTime(anchor.trueTime.sinceEpoch),
            monotonic: ExactTime(anchor.monotonic.sinceOrigin),
            errorBoundNanoseconds: Self.boundNanoseconds(
                anchor.errorBound, truncating: anchor.trueTime.sinceEpoch, anchor.monotonic.sinceOrigin),
            source: anchor.source.rawValue,
            server: anchor.server, authenticated: anchor.isAuthenticated ? true : nil)
        if let drift, !drift.points.isEmpty {
            let estimate = drift.estimate
            self.drift = DriftRecord(
                frequencyErrorPPM: estimate.map(\.frequencyErrorPPM).flatMap { $0.isFinite ? $0 : nil },
                uncertaintyPPM: estimate.map(\.rateUncertaintyPPM).flatMap { $0.isFinite ? $0 : nil },
                points: drift.points.map { point in
                    PointRecord(
                        monotonic: ExactTime(point.monotonic.sinceOrigin),
                        trueTime: ExactTime(point.trueTime.sinceEpoch),
                        errorBoundNanoseconds: Self.boundNanoseconds(
                            point.errorBound, truncating: point.trueTime.sinceEpoch,
                            point.monotonic.sinceOrigin))
                })
        } else {
            self.drift = nil
        }
    }

    /// The largest bound a file may hold: one year.
    static let maximumBoundNanoseconds: Int64 = 366 * 86_400 * 1_000_000_000

    /// The largest drift history a file may hold.
    static let maximumPoints = 1024

    /// The anchor and drift history, or a sentence saying which value is out of range.
    func validated() -> Result<
        (
            anchor: Anchor, points: [DriftEstimator.SyncPoint], writtenAt: UnixTime,
            writtenAtMonotonic: MonotonicInstant
        ), ValidationFailure
    > {
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
        guard let record = Self.point(anchor.monotonic, anchor.trueTime, anchor.errorBoundNanoseconds) else {
            return .failure("anchor time, monotonic instant or error bound is out of range")
        }
        let restored = Anchor(
            trueTime: record.trueTime, monotonic: record.monotonic, errorBound: record.errorBound,
            source: source,
            server: anchor.server, isAuthenticated: anchor.authenticated ?? false)
        var points = [DriftEstimator.SyncPoint]()
        if let drift {
            guard drift.points.count <= Self.maximumPoints else {
                return .failure("drift history is too long")
            }
            for entry in drift.points {
                guard let point = Self.point(entry.monotonic, entry.trueTime, entry.errorBoundNanoseconds)
                else {
                    return .failure("a drift point is out of range")
                }
                points.append(point)
            }
        }
        return .success(
            (
                restored, points, UnixTime(sinceEpoch: writtenAt),
                MonotonicInstant(sinceOrigin: writtenAtMonotonic)
            ))
    }

    /// A reason a file's values were refused.
    struct ValidationFailure: Error, ExpressibleByStringLiteral {
        var reason: String
        init(stringLiteral reason: String) { self.reason = reason }
        init(_ reason: String) { self.reason = reason }
    }

    private static func point(_ monotonic: ExactTime, _ trueTime: ExactTime, _ boundNanoseconds: Int64)
        -> DriftEstimator.SyncPoint?
    {
        guard let monotonic = monotonic.duration, let trueTime = trueTime.duration,
            (0...maximumBoundNanoseconds).contains(boundNanoseconds)
        else { return nil }
        let point = DriftEstimator.SyncPoint(
            monotonic: MonotonicInstant(sinceOrigin: monotonic), trueTime: UnixTime(sinceEpoch: trueTime),
            errorBound: .nanoseconds(boundNanoseconds))
        return point.isWithinSupportedRange ? point : nil
    }
}
