#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NetClockTLS
import Roughtime
import SNTP
import TimeBase

/// NTP first; when NTP cannot give a time (every source timed out, was refused or rejected, or no
/// NTP servers are configured), HTTP(S) — all within one overall deadline.
///
/// A `noMajority` outcome does not fall back: servers that answered but disagree are evidence of a
/// fault or an attack, and a weaker HTTP source must not paper over it.
package struct TimeSyncEngine: Sendable {
    /// The NTP engine; its policy's servers may be empty (HTTP only).
    package var ntp: NTPSyncEngine
    /// HTTP(S) URLs to fall back on.
    package var httpURLs: [URL]
    /// How HTTP measurements are made.
    package var http: HTTPTimeClient
    /// The whole sync, NTP and fallback together, ends by this long after it starts.
    package var deadline: Duration
    /// The Roughtime query run beside the NTP round, when Roughtime servers are configured.
    package var roughtime: RoughtimeStage?
    /// The trusted clock's time, when it has an authenticated anchor (the facade's clock): what
    /// certificates are checked against under ``NetworkClock/CertificateTimePolicy/automatic``.
    package var trustedTime: (@Sendable () -> TimeEstimate?)?

    /// Creates an engine. When HTTP URLs are given, NTP gets at most half of `deadline` (or its own
    /// policy deadline, if shorter) so the fallback always has time left.
    package init(
        ntp: NTPSyncEngine, httpURLs: [URL] = [], http: HTTPTimeClient = HTTPTimeClient(),
        deadline: Duration? = nil
    ) {
        self.httpURLs = httpURLs
        self.http = http
        let total =
            deadline ?? (ntp.policy.deadline + (httpURLs.isEmpty ? .zero : http.configuration.deadline))
        self.deadline = total
        var ntp = ntp
        if !httpURLs.isEmpty && !ntp.policy.servers.isEmpty {
            ntp.policy.deadline = min(ntp.policy.deadline, total / 2)
        }
        self.ntp = ntp
    }

    /// Runs one sync: NTP and NTS, Roughtime, then the HTTP fallback if needed, with `floor` the
    /// least the true time was proven to be (nil when unknown).
    ///
    /// Cancelling the calling task ends the sync within one poll slice with
    /// ``SyncError/cancelled``; there is no fallback then.
    /// - Throws: ``SyncError`` naming every source's failure.
    /// `smear` is what is known of leap seconds before the sync, for mapping smearing servers.
    package func sync(floor: UnixTime? = nil, smear: SmearKnowledge = SmearKnowledge())
        async throws(SyncError)
        -> SyncReport
    {
        let start = ntp.client.monotonic.now()
        let roughtimeQuery = roughtime?.start()
        var roughtimeAnswer: RoughtimeQueryResult?
        func awaitRoughtime() async -> RoughtimeQueryResult? {
            guard let roughtimeQuery else { return nil }
            let left = deadline - (ntp.client.monotonic.now() - start)
            return await roughtimeQuery.wait(timeout: max(left, .milliseconds(100)))[0]
        }
        // Which time the certificates are checked against, decided before any key exchange.
        var facts = SyncFacts(floor: floor)
        facts.smear = smear
        var check: SyncReport.CertificateCheck?
        if checksCertificates {
            let decided = await certificateTime(
                roughtime: roughtimeQuery == nil ? nil : awaitRoughtime, floor: floor)
            check = decided.check
            roughtimeAnswer = decided.roughtime
            facts.certificateTime = decided.time
            try SyncError.checkCancellation()
        }
        let known = roughtimeAnswer
        let signedAnswer: (() async -> RoughtimeQueryResult?)? =
            roughtimeQuery == nil ? nil : { if let known { known } else { await awaitRoughtime() } }
        var report: SyncReport
        do throws(SyncError) {
            report = try await decideSources(facts, roughtime: signedAnswer)
        } catch {
            if error.code == .cancelled { roughtimeQuery?.cancel() }
            var error = error
            error.certificateCheck = check
            throw error
        }
        report.certificateCheck = check
        if check == .trustedClock || check == .roughtime {
            report.certificateWarnings = Self.edges(of: report)
        }
        // Authenticated sources were configured, yet none of them took part in the time.
        let authenticatedTookPart =
            report.isAuthenticated || report.roughtime?.agreedOffsets != nil
            || report.servers.contains { $0.ntp != nil && $0.isAuthenticated && $0.tookPart }
        report.isDowngraded = ntp.policy.usesAuthenticatedSources && !authenticatedTookPart
        report.elapsed = ntp.client.monotonic.now() - start
        return report
    }

    /// A round of NTP and NTS queries and Roughtime's answer decide together; when no NTP source
    /// took part in the result (none answered, or the signed time alone decided), the HTTP(S)
    /// measurements and Roughtime's answer do. Roughtime's report is attached either way.
    private func decideSources(
        _ facts: SyncFacts, roughtime: (() async -> RoughtimeQueryResult?)?
    ) async throws(SyncError) -> SyncReport {
        let clock = ntp.client.monotonic
        let start = clock.now()
        var round: NTPSyncEngine.Round?
        if !ntp.policy.servers.isEmpty {
            round = try await ntp.measure(certificateTime: facts.certificateTime)
        }
        // HTTP time is never authenticated: with authenticated sources required it cannot stand in.
        let httpAllowed =
            !httpURLs.isEmpty && !(ntp.policy.usesAuthenticatedSources && ntp.policy.ntsMode == .require)
        // Without an NTP answer the fallback is needed whatever Roughtime says: it runs while
        // Roughtime's answer is awaited.
        let noNTPAnswer = !(round?.reports.contains { $0.status == .survivor } ?? false)
        let left = deadline - (clock.now() - start)
        async let early: HTTPRound? =
            httpAllowed && noNTPAnswer ? measureHTTP(left: left, certificateTime: facts.certificateTime) : nil
        var signed: SignedTime?
        if let roughtime, let answer = await roughtime() { signed = SignedTime(answer) }
        try SyncError.checkCancellation()
        var ntpReports: [SyncReport.Server] = []
        var ntpFailure: SyncError?
        if let round {
            do {
                let report = try ntp.decide(round, facts: facts, signed: &signed)
                if report.source == .ntp || httpURLs.isEmpty { return Self.attach(signed, to: report) }
                ntpReports = report.servers
            } catch {
                switch error.code {
                // Answers that disagree are evidence of a fault or an attack: no weaker source may
                // paper over them.
                case .noMajority, .authenticatedSourcesDisagree, .cancelled:
                    throw Self.attach(signed, to: error)
                default: ntpReports = error.servers
                }
                ntpFailure = error
            }
        }
        guard !httpURLs.isEmpty || signed?.candidate != nil else {
            throw Self.attach(signed, to: ntpFailure ?? .noServers)
        }
        var http = HTTPRound()
        if httpAllowed {
            if let measured = await early {
                http = measured
            } else {
                http = await measureHTTP(
                    left: deadline - (clock.now() - start), certificateTime: facts.certificateTime)
            }
            try SyncError.checkCancellation()
        } else {
            http.reports = httpURLs.map {
                SyncReport.Server(
                    url: $0, notMeasured: .unauthenticated,
                    reason:
                        "not used: NTS mode require lets only authenticated (NTS, Roughtime) sources decide the time"
                )
            }
        }
        do throws(SyncError) {
            return Self.attach(
                signed,
                to: try decideHTTP(http, facts: facts, ntpReports: ntpReports, signed: &signed, start: start))
        } catch {
            throw Self.attach(signed, to: error)
        }
    }

    /// What measuring the HTTP(S) URLs gave: every URL's report, and the measurements by index.
    private struct HTTPRound: Sendable {
        var reports: [SyncReport.Server] = []
        var measurements: [Int: HTTPTimeMeasurement] = [:]
    }

    /// Measures every URL within `left`, checking HTTPS certificates against `certificateTime`,
    /// reporting each.
    private func measureHTTP(left: Duration, certificateTime: CertificateTime) async -> HTTPRound {
        guard left > .milliseconds(1) else { return HTTPRound(reports: httpURLs.map { Self.skipped($0) }) }
        var client = http
        var configuration = client.configuration
        configuration.deadline = min(configuration.deadline, left)
        configuration.requestTimeout = min(configuration.requestTimeout, left)
        client = HTTPTimeClient(
            configuration: configuration, trustRoots: client.trustRoots, monotonicClock: ntp.client.monotonic,
            wallClock: ntp.client.wall)
        client.certificateTime = certificateTime
        let outcomes = await Self.measureAll(httpURLs, with: client, progress: progress)
        var round = HTTPRound()
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let measurement):
                round.reports.append(SyncReport.Server(measurement, status: .survivor))
                round.measurements[index] = measurement
            case .failure(let error):
                round.reports.append(SyncReport.Server(url: httpURLs[index], error: error))
            }
        }
        return round
    }

    /// Selects the time from the HTTP(S) `measurements` and Roughtime's `signed` time (either may
    /// be missing).
    private func decideHTTP(
        _ round: HTTPRound, facts: SyncFacts, ntpReports: [SyncReport.Server], signed: inout SignedTime?,
        start: MonotonicInstant
    ) throws(SyncError) -> SyncReport {
        let measurements = round.measurements
        var reports = round.reports
        var candidates = measurements.keys.sorted().compactMap { index in
            measurements[index].map { Self.candidate($0, index: index) }
        }
        if let roughtime = signed?.candidate { candidates.append(roughtime) }
        let selection = SourceSelection(
            policy: ntp.policy, facts: facts, ntsConfigured: false,
            configured: Dictionary(httpURLs.map { ($0.absoluteString, false) }) { first, _ in first },
            noun: "URLs")
        let decision: SourceSelection.Decision
        do {
            decision = try selection.decide(candidates)
        } catch {
            reports.mark(error.rejected)
            signed?.apply(error.rejected)
            throw SyncError(error, candidates: candidates, servers: ntpReports + reports)
        }
        reports.mark(decision.rejected)
        signed?.apply(decision.rejected)
        let interval = decision.outcome.interval
        let elapsed = ntp.client.monotonic.now() - start
        var report: SyncReport
        if let measurement = measurements[decision.outcome.selected] {
            reports[decision.outcome.selected].status = .selected
            let localWall = measurement.localTime + (interval.instant - measurement.monotonic)
            report = SyncReport(
                trueTime: interval.midpoint, monotonic: interval.instant, errorBound: interval.radius,
                offset: interval.midpoint - localWall, delay: measurement.roundTripDelay, source: .http,
                server: measurement.url.absoluteString, servers: ntpReports + reports, elapsed: elapsed)
        } else if let decided = signed?.decidedReport(interval, elapsed: elapsed) {
            report = decided
            report.servers = ntpReports + reports
            let agreeing = Set([decision.outcome.selected] + decision.outcome.survivors)
            report.isAuthenticated = candidates.filter { agreeing.contains($0.index) }.allSatisfy(
                \.isAuthenticated)
        } else {
            throw .noUsableSource(ntpReports + reports)
        }
        return report
    }

    /// `report` with Roughtime's part of the sync.
    private static func attach(_ signed: SignedTime?, to report: SyncReport) -> SyncReport {
        signed?.attached(to: report) ?? report
    }

    /// `error` with Roughtime's part of the sync.
    private static func attach(_ signed: SignedTime?, to error: SyncError) -> SyncError {
        guard let signed else { return error }
        return error.adding(signed)
    }

    /// An HTTP(S) measurement as the selection's candidate: never authenticated, resting on the
    /// certificates of its TLS connection (none over `http://`).
    private static func candidate(_ measurement: HTTPTimeMeasurement, index: Int) -> Candidate {
        Candidate(
            index: index, name: measurement.url.absoluteString,
            kind: measurement.url.scheme?.lowercased() == "https" ? .https : .http,
            interval: measurement.interval, delay: measurement.roundTripDelay, isAuthenticated: false,
            certificates: measurement.certificateChain)
    }

    private static func skipped(_ url: URL) -> SyncReport.Server {
        SyncReport.Server(
            url: url, error: HTTPTimeError(.timeout, "no time left before the sync deadline"))
    }

    /// One URL's outcome and its place in the list: what a measuring child task returns.
    private struct IndexedOutcome: Sendable {
        let index: Int
        let outcome: Result<HTTPTimeMeasurement, HTTPTimeError>
    }

    private static func measureAll(
        _ urls: [URL], with client: HTTPTimeClient, progress: SyncProgressObserver?
    ) async -> [Result<HTTPTimeMeasurement, HTTPTimeError>] {
        await withTaskGroup(of: IndexedOutcome.self) { group in
            for (index, url) in urls.enumerated() {
                progress?(.httpStarted(url: url.absoluteString))
                group.addTask {
                    // The child's value is made whole after the await. Swift 6.3's optimiser drops
                    // the parts of a task's tuple result written before a suspension, as in
                    // `return (index, .success(try await ...))` (swiftlang/swift#91911, reverted in
                    // #92155): the index came back as garbage and `watch` crashed (issue 28).
                    let outcome = await measurement(of: url, with: client)
                    return IndexedOutcome(index: index, outcome: outcome)
                }
            }
            var results: [Result<HTTPTimeMeasurement, HTTPTimeError>?] = Array(
                repeating: nil, count: urls.count)
            for await child in group {
                results[child.index] = child.outcome
                let measured = (try? child.outcome.get()) != nil
                progress?(.httpFinished(url: urls[child.index].absoluteString, measured: measured))
            }
            return results.compactMap { $0 }
        }
    }

    private static func measurement(
        of url: URL, with client: HTTPTimeClient
    ) async -> Result<HTTPTimeMeasurement, HTTPTimeError> {
        do throws(HTTPTimeError) {
            return .success(try await client.measure(url))
        } catch {
            return .failure(error)
        }
    }
}

extension TimeSyncEngine {
    /// Told about the NTP round, every request, and each HTTP fallback URL as it starts and ends;
    /// nil by default.
    package var progress: SyncProgressObserver? {
        get { ntp.progress }
        set { ntp.progress = newValue }
    }
}
