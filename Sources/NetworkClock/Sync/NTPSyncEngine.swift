import NTSClient
import NetClockTLS
import NetClockPlatform
import SNTP
import TimeBase

/// Queries every address of every configured server in parallel, rejects falsetickers, and
/// combines the rest into one result.
///
/// Etiquette is enforced per address through a ``SourceRegistry`` shared across syncs: a burst
/// never starts before the spacing since the previous one has passed; a RATE kiss backs the
/// address off; DENY and RSTR drop it for the registry's lifetime.
///
/// Name lookups and bursts run on a ``BlockingPool``. Once a sync has what it needs (or its
/// deadline passed, or its task was cancelled) the work still queued for it never starts and the
/// bursts still running stop within one poll slice (``CancellableWait/slice``).
package struct NTPSyncEngine: Sendable {
    /// What to query and how.
    package var policy: SyncPolicy
    /// The client that sends the bursts (and its clocks and nonce source).
    package var client: SNTPClient
    /// Etiquette state shared across syncs.
    package var registry: SourceRegistry
    /// How long a RATE kiss silences an address.
    package var rateBackoff: Duration
    /// Where name lookups and bursts run.
    package var pool: BlockingPool = .shared
    /// NTS associations (keys, cookies) and key-exchange back-off shared across syncs.
    package var ntsSessions: NTSSessions = NTSSessions()

    /// Creates an engine.
    package init(
        policy: SyncPolicy, client: SNTPClient = SNTPClient(), registry: SourceRegistry = SourceRegistry(),
        rateBackoff: Duration = .seconds(64)
    ) {
        self.policy = policy
        self.client = client
        self.registry = registry
        self.rateBackoff = rateBackoff
    }

    /// One source to query: an address of a plain server, or an NTS server (whose NTP address
    /// its key exchange names).
    enum Target: Sendable {
        case plain(server: ServerName, address: SocketAddress)
        case nts(server: ServerName)
    }

    /// What querying one target produced.
    enum TargetResult: Sendable {
        case plain(ServerQueryResult)
        case nts(NTSQueryOutcome)

        /// The burst's record, when there was a burst.
        var query: ServerQueryResult? {
            switch self {
            case .plain(let result): return result
            case .nts(let outcome): return outcome.result
            }
        }
    }

    /// What one round of queries found, before any source is selected.
    package struct Round: Sendable {
        /// Every source's report; those that answered consistently are `survivor`s.
        var reports: [SyncReport.Server]
        /// When the round began.
        var start: MonotonicInstant
    }

    /// Runs one sync: a round of queries, then the selection.
    ///
    /// Cancelling the calling task ends the sync within one poll slice with
    /// ``SyncError/cancelled``.
    /// - Throws: ``SyncError`` when no usable, agreeing source answered by the deadline.
    package func sync() async throws(SyncError) -> SyncReport {
        var signed: SignedTime?
        return try decide(await measure(), facts: SyncFacts(), signed: &signed)
    }

    /// Queries every address of every configured server once, within the policy's deadline,
    /// checking NTS-KE certificates against `certificateTime`.
    /// - Throws: ``SyncError`` only for no servers or cancellation.
    func measure(certificateTime: CertificateTime = .wallClock) async throws(SyncError) -> Round {
        guard !policy.servers.isEmpty else { throw .noServers }
        try SyncError.checkCancellation()
        let monotonic = client.monotonic
        let start = monotonic.now()
        let deadline = start + policy.deadline
        var reports: [SyncReport.Server] = []
        var targets: [(report: Int, target: Target)] = []
        let resolved = await resolveAll(policy.servers.filter { !$0.usesNTS }, deadline: policy.deadline / 2)
        try SyncError.checkCancellation()
        for (server, outcome) in resolved {
            switch outcome {
            case .failure(let error):
                reports.append(
                    SyncReport.Server(
                        server: server, address: nil, status: .error, reason: error.description))
            case .success(let addresses):
                for address in addresses {
                    let admission = registry.admission(
                        for: address, at: start, spacing: policy.query.interval)
                    if case .allowed = admission {
                    } else {
                        reports.append(
                            SyncReport.Server(
                                server: server, address: address, status: .skipped,
                                reason: admission.description))
                        continue
                    }
                    reports.append(SyncReport.Server(server: server, address: address, status: .timeout))
                    targets.append((reports.count - 1, .plain(server: server, address: address)))
                }
            }
        }
        for server in policy.servers where server.usesNTS {
            var report = SyncReport.Server(server: server, address: nil, status: .timeout)
            report.ntp?.nts = NTSSourceDetails()
            reports.append(report)
            targets.append((reports.count - 1, .nts(server: server)))
        }
        client.progress?(.querying(addresses: targets.count))
        let results = await queryAll(
            targets.map(\.target), deadline: deadline, certificateTime: certificateTime)
        try SyncError.checkCancellation()
        for (position, item) in targets.enumerated() {
            guard let outcome = results[position] else {
                reports[item.report].reason = "no sample before enough other sources answered"
                continue
            }
            if case .nts(let nts) = outcome {
                reports[item.report].ntp?.address = nts.ntpAddress
                var details = NTSSourceDetails(
                    keyExchangeAddress: nts.keyExchangeAddress, aead: nts.aead, cookies: nts.cookiesHeld,
                    keyExchanges: nts.keyExchanges)
                if nts.keyExchanges > 0, let association = nts.association {
                    details.certificateTime = association.certificateTime
                }
                reports[item.report].ntp?.nts = details
                reports[item.report].certificateChain = nts.association?.certificateChain ?? []
                if nts.result == nil, let failure = nts.failure {
                    reports[item.report].status = failure.code == .skipped ? .skipped : .error
                    reports[item.report].reason = failure.reason
                    continue
                }
            }
            guard let result = outcome.query else { continue }
            reports[item.report].ntp?.query = result
            if let failure = result.failure {
                reports[item.report].status = Self.status(of: failure)
                reports[item.report].reason = failure.description
            } else if case .failure(let inconsistency) = result.estimate {
                reports[item.report].status = .inconsistent
                reports[item.report].reason = inconsistency.description
            } else {
                reports[item.report].status = .survivor
            }
        }
        return Round(reports: reports, start: start)
    }

    private static func status(of failure: QueryFailure) -> SyncReport.SourceStatus {
        switch failure {
        case .timedOut: return .timeout
        case .refused: return .refused
        case .kissOfDeath: return .kissOfDeath
        case .allRejected: return .rejected
        case .transport: return .error
        }
    }

    /// Resolves every server on the pool; a name still unresolved at `deadline` is reported as
    /// failed (`getaddrinfo` cannot be cancelled, so its thread finishes on its own).
    private func resolveAll(_ servers: [ServerName], deadline: Duration) async -> [(
        ServerName, Result<[SocketAddress], TransportError>
    )] {
        let policy = self.policy
        let batch = BlockingBatch<Result<[SocketAddress], TransportError>>(on: pool)
        for server in servers {
            batch.submit { _ in
                Result { () throws(TransportError) in
                    try Resolver.resolve(
                        server.host, port: server.port ?? policy.defaultPort, family: policy.family,
                        limit: policy.addressesPerHost)
                }
            }
        }
        let results = await batch.wait(timeout: deadline)
        return servers.enumerated().map { index, server in
            let timedOut = TransportError.resolutionFailed(
                host: server.host, reason: "name resolution took longer than \(deadline.formattedSeconds)")
            return (server, results[index] ?? .failure(timedOut))
        }
    }

    private func queryAll(
        _ targets: [Target], deadline: MonotonicInstant, certificateTime: CertificateTime
    ) async -> [Int: TargetResult] {
        guard !targets.isEmpty else { return [:] }
        let enough = policy.minimumSources.map { min(max(1, $0), targets.count) } ?? targets.count
        let batch = BlockingBatch<TargetResult>(on: pool, enough: enough) { $0.query?.best != nil }
        for target in targets {
            let engine = self
            batch.submit { stop in
                switch target {
                case .plain(_, let address):
                    return .plain(
                        engine.burst(to: address, deadline: deadline, isCancelled: { stop.isCancelled }))
                case .nts(let server):
                    return .nts(
                        engine.ntsBurst(
                            to: server, deadline: deadline, certificateTime: certificateTime,
                            isCancelled: { stop.isCancelled }))
                }
            }
        }
        return await batch.wait(timeout: deadline - client.monotonic.now() + .milliseconds(100))
    }

    /// One burst to one address, honouring and updating its etiquette state. Blocks; stops within
    /// one poll slice once `isCancelled` returns true.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    func burst(
        to address: SocketAddress, deadline: MonotonicInstant, protection: (any PacketProtection)? = nil,
        isCancelled: () -> Bool = { false }
    ) -> ServerQueryResult {
        let admission = registry.admission(
            for: address, at: client.monotonic.now(), spacing: policy.query.interval)
        guard case .allowed(let notBefore) = admission else {
            // Another sync got a kiss meanwhile: nothing is sent.
            let mapping = TimeMapping(wall: client.wall, monotonic: client.monotonic)
            return ServerQueryResult(address: address, exchanges: [], mapping: mapping)
        }
        let result = client.query(
            address, options: policy.query, deadline: deadline, notBefore: notBefore, protection: protection,
            isCancelled: isCancelled)
        registry.record(result, at: client.monotonic.now(), rateBackoff: rateBackoff)
        return result
    }

    /// Selects the time from `round`'s sources and Roughtime's `signed` time, whose report the
    /// selection may withdraw the agreement from, under this sync's `facts`.
    func decide(_ round: Round, facts: SyncFacts, signed: inout SignedTime?) throws(SyncError) -> SyncReport {
        var reports = round.reports
        // Each agreeing source votes with its burst's intersection; an inconsistent one not at all.
        var candidates = reports.enumerated().compactMap { index, report -> Candidate? in
            guard report.status == .survivor, let estimate = report.ntp?.estimate, let best = report.ntp?.best
            else {
                return nil
            }
            return Candidate(
                index: index, name: report.name, kind: report.kind,
                interval: estimate.interval, delay: best.delay, isAuthenticated: report.isAuthenticated,
                certificates: report.certificateChain)
        }
        mapSmearing(&candidates, reports: &reports, facts: facts)
        if let roughtime = signed?.candidate { candidates.append(roughtime) }
        let selection = SourceSelection(
            policy: policy, facts: facts, ntsConfigured: policy.usesNTS,
            configured: Dictionary(policy.servers.map { ($0.description, $0.usesNTS) }) { first, _ in first },
            noun: "servers")
        let decision: SourceSelection.Decision
        do {
            decision = try selection.decide(candidates)
        } catch {
            reports.mark(error.rejected)
            signed?.apply(error.rejected)
            throw SyncError(error, candidates: candidates, servers: reports)
        }
        reports.mark(decision.rejected)
        signed?.apply(decision.rejected)
        if let conflict = decision.authenticatedConflict(among: candidates) {
            throw SyncError(code: .authenticatedSourcesDisagree, reason: conflict, servers: reports)
        }
        let outcome = decision.outcome
        let elapsed = client.monotonic.now() - round.start
        var report: SyncReport
        if outcome.selected == SignedTime.candidateIndex {
            guard let decided = signed?.decidedReport(outcome.interval, elapsed: elapsed) else {
                throw .noUsableSource(reports)
            }
            report = decided
            report.servers = reports
        } else {
            reports[outcome.selected].status = .selected
            guard let selected = reports[outcome.selected].ntp?.query, let sample = selected.best else {
                throw .noUsableSource(reports)
            }
            let trueTime = outcome.interval.midpoint
            let localWall = selected.mapping.wallTime(at: outcome.interval.instant)
            let server = reports[outcome.selected].nameAndAddress
            report = SyncReport(
                trueTime: trueTime, monotonic: outcome.interval.instant, errorBound: outcome.interval.radius,
                offset: trueTime - localWall, delay: sample.delay, source: .ntp,
                server: server, servers: reports, elapsed: elapsed)
        }
        // Authenticated only when every source the result rests on is.
        let agreeing = Set([outcome.selected] + outcome.survivors)
        report.isAuthenticated = candidates.filter { agreeing.contains($0.index) }.allSatisfy(
            \.isAuthenticated)
        // A smearing server announces no leap (it smears it): it does not vote.
        report.leapVoters = agreeing.sorted().compactMap { index in
            guard reports.indices.contains(index), !reports[index].isSmearing else { return nil }
            return Self.voter(reports[index])
        }
        let vote = LeapVote(report.leapVoters, authenticatedOnly: policy.usesNTS)
        report.leapDisagreeing = vote.disagreeing
        if let sign = vote.agreed { report.leapSchedule = .announced(sign: sign, at: report.trueTime) }
        return report
    }
}

extension NTPSyncEngine {
    /// `report`'s leap indicator as a vote, when it has a sample.
    static func voter(_ report: SyncReport.Server) -> LeapVote.Voter? {
        guard let best = report.ntp?.best else { return nil }
        let sign: Int64 =
            switch best.reply.leap {
            case .insertSecond: 1
            case .deleteSecond: -1
            default: 0
            }
        return LeapVote.Voter(
            name: report.name, sign: sign, isAuthenticated: report.isAuthenticated)
    }

    /// Marks the configured smearing servers' reports and maps their candidates' intervals onto
    /// stepping time (``SmearMapping``) with what is known of the leap: `facts`' table and held
    /// anchor, and the announcement every stepping candidate agrees on (a single dissenter makes it
    /// unknown, so no one server can pick the mapping).
    func mapSmearing(
        _ candidates: inout [Candidate], reports: inout [SyncReport.Server], facts: SyncFacts
    ) {
        guard !policy.smearingServers.isEmpty else { return }
        for index in reports.indices where policy.smearingServers.contains(reports[index].name) {
            reports[index].isSmearing = true
        }
        let stepping = candidates.filter { !reports[$0.index].isSmearing }
        let vote = LeapVote(
            stepping.compactMap { Self.voter(reports[$0.index]) }, authenticatedOnly: policy.usesNTS)
        var knowledge = facts.smear
        if let sign = vote.agreed, let first = stepping.first {
            knowledge.announced = (sign, first.interval.midpoint)
        }
        for position in candidates.indices where reports[candidates[position].index].isSmearing {
            let interval = candidates[position].interval
            var mapped = interval
            if let midnight = SmearMapping.window(of: interval) {
                let mapping = SmearMapping(
                    midnight: midnight, signs: knowledge.signs(at: midnight, latest: interval.latest))
                mapped = mapping.map(interval)
            }
            candidates[position].interval = mapped
            let index = candidates[position].index
            reports[index].smearCorrection = mapped.midpoint - interval.midpoint
            reports[index].smearWidening = mapped.radius - interval.radius
        }
    }

    /// Told about the round and every request as it happens (see ``SyncProgress``); nil by default.
    /// Stored in the ``client``, which reports the requests.
    package var progress: SyncProgressObserver? {
        get { client.progress }
        set { client.progress = newValue }
    }
}
