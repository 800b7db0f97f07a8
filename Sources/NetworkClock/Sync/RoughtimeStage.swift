import NetClockPlatform
import Roughtime
import SNTP

/// The Roughtime part of a sync: the chained query of the configured Roughtime servers, run on
/// the blocking pool beside the NTP round, and the rules that combine its signed interval with
/// what the NTP, NTS and HTTP sources said.
///
/// Roughtime time is authenticated (Ed25519 signatures by long-term keys, checked without any
/// certificate and so without a correct local clock) but coarse: a radius of a second or more.
/// Under the ``NetworkClock/NTSMode``, which governs every authenticated source kind:
///
/// - An authenticated (NTS) result that overlaps the agreed Roughtime interval stands; one that
///   does not is a conflict between authenticated sources, and the sync gives no time
///   (`authenticated_sources_disagree`).
/// - An unauthenticated result (plain NTP, HTTP) decides only under `mix`, and only when it
///   overlaps the Roughtime interval; under `require` and `prefer`, or when it contradicts the
///   signed time, the Roughtime interval is the result and those sources are reported as not
///   used or as falsetickers.
/// - When the other sources give no time at all, the Roughtime interval is the result.
///
/// Without an agreement (no majority, too few replies) Roughtime adds nothing but its report:
/// the other sources decide as if it were not configured, and a result that rests only on
/// unauthenticated sources is a downgrade.
package struct RoughtimeStage: Sendable {
    /// The servers to ask, in order (the chain follows it).
    package var servers: [RoughtimeServer]
    /// How the query runs.
    package var options: RoughtimeClient.Options
    /// The client (its clocks are the sync's).
    package var client: RoughtimeClient
    /// Where the query runs.
    package var pool: BlockingPool

    /// Starts the query on the pool; await ``BlockingBatch/wait(timeout:onTaskCancellation:)`` for it.
    func start() -> BlockingBatch<RoughtimeQueryResult> {
        let batch = BlockingBatch<RoughtimeQueryResult>(on: pool)
        let (client, servers, options) = (self.client, self.servers, self.options)
        batch.submit { stop in client.query(servers, options: options, isCancelled: { stop.isCancelled }) }
        return batch
    }

    /// The report's view of a finished query.
    static func source(_ result: RoughtimeQueryResult) -> SyncReport.RoughtimeSource {
        SyncReport.RoughtimeSource(result)
    }

    /// The sync's result from the other sources' `outcome` and the Roughtime `result`.
    /// - Parameters:
    ///   - mode: whether unauthenticated sources may decide.
    ///   - wall: the local wall clock, to express the Roughtime time as an offset.
    ///   - tolerancePPM: the frequency tolerance that carries intervals to a common instant.
    static func combine(
        _ outcome: Result<SyncReport, SyncError>, with result: RoughtimeQueryResult,
        mode: NetworkClock.NTSMode,
        tolerancePPM: Double, floor: UnixTime? = nil
    ) -> Result<SyncReport, SyncError> {
        var roughtime = source(result)
        var agreed = result.agreement
        if case .success(let agreement) = agreed, let floor, agreement.interval.latest < floor {
            // Signed, agreed, and still earlier than what was once proven: not believed.
            let reason =
                "the agreed signed time lies wholly before the time floor (\(ISO8601.format(floor, fractionDigits: 0)))"
            agreed = .failure(RoughtimeError(.noMajority, reason))
            roughtime.agreedOffsets = nil
            roughtime.error = reason
        }
        guard case .success(let agreement) = agreed else {
            // No agreed signed time: the other sources decide; the report says why not Roughtime.
            switch outcome {
            case .success(var report):
                report.roughtime = roughtime
                return .success(report)
            case .failure(let error):
                return .failure(error.adding(roughtime))
            }
        }
        let tolerance = QueryOptions.validTolerance(tolerancePPM)
        let signed = signedReport(agreement, roughtime: roughtime, result: result)
        switch outcome {
        case .failure(let error):
            // The others gave no time (silent, refused, or split with no majority): signed time.
            var report = signed
            report.sources = error.sources
            report.httpSources = error.httpSources
            return .success(report)
        case .success(var report):
            report.roughtime = roughtime
            let overlaps = Self.overlaps(report, agreement.interval, tolerancePPM: tolerance)
            if report.isAuthenticated {
                guard overlaps else {
                    return .failure(
                        SyncError(
                            code: .authenticatedSourcesDisagree,
                            reason: "the NTS result \(report.offset.signedFormattedSeconds) ± "
                                + "\(report.errorBound.formattedSeconds) contradicts the signed Roughtime time "
                                + "\(agreement.interval): two authenticated kinds of source disagree",
                            sources: report.sources, httpSources: report.httpSources, roughtime: roughtime))
                }
                return .success(report)
            }
            if overlaps && mode == .mix {
                return .success(report)
            }
            var decided = signed
            let reason =
                overlaps
                ? "not used: Roughtime answered, and NTS mode \(mode) lets only authenticated sources decide"
                : "outside the interval the signed Roughtime time proves"
            decided.sources = report.sources.map { source in
                guard source.status == .selected || source.status == .survivor else { return source }
                var changed = source
                changed.status = overlaps ? .unauthenticated : .falseticker
                changed.reason = reason
                return changed
            }
            decided.httpSources = report.httpSources.map { http in
                guard http.status == .selected || http.status == .survivor else { return http }
                var changed = http
                changed.status = overlaps ? .unauthenticated : .falseticker
                changed.reason = reason
                return changed
            }
            return .success(decided)
        }
    }

    /// The report of the agreed signed time alone.
    private static func signedReport(
        _ agreement: RoughtimeAgreement, roughtime: SyncReport.RoughtimeSource, result: RoughtimeQueryResult
    ) -> SyncReport {
        let interval = agreement.interval
        let agreeing = agreement.agreeing.map { result.servers[$0] }
        let delay = agreeing.compactMap(\.roundTrip).min() ?? .zero
        let names = agreeing.map(\.name).joined(separator: ", ")
        var report = SyncReport(
            trueTime: UnixTime(sinceEpoch: interval.midpoint.sinceEpoch.flooredToNanosecond),
            monotonic: interval.instant, errorBound: interval.radius.ceiledToNanosecond + .nanoseconds(1),
            offset: agreement.offsets.offset, delay: delay, source: .roughtime,
            server: "roughtime (\(agreement.agreeing.count) of \(agreement.valid): \(names))", sources: [],
            elapsed: .zero)
        report.isAuthenticated = true
        report.roughtime = roughtime
        return report
    }

    /// Whether `report`'s interval and the signed `interval` share a point, both carried to the
    /// later of their instants.
    static func overlaps(_ report: SyncReport, _ interval: TrueTimeInterval, tolerancePPM: Double) -> Bool {
        let instant = max(report.monotonic, interval.instant)
        let reported = TrueTimeInterval(
            time: report.trueTime, bound: report.errorBound, instant: report.monotonic)
        return reported.aged(to: instant, tolerancePPM: tolerancePPM)
            .overlaps(interval.aged(to: instant, tolerancePPM: tolerancePPM))
    }
}

extension SyncError {
    /// The error with the Roughtime part of the sync added to its report.
    func adding(_ roughtime: SyncReport.RoughtimeSource) -> SyncError {
        let reason =
            roughtime.error.map { "\(self.reason); Roughtime: \($0)" } ?? self.reason
        return SyncError(
            code: code, reason: reason, sources: sources, httpSources: httpSources,
            majorityFailure: majorityFailure, roughtime: roughtime)
    }
}
