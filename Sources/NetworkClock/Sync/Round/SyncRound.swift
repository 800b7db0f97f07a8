#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NTSClient
import NetClockPlatform
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

/// One sync round as a state machine that is told the time and answers with actions, as
/// ntpd-rs's `NtpSource` answers `NtpSourceAction`s: which names to resolve, which NTS servers to
/// prepare, which datagram goes to which address, when to ask Roughtime and the HTTP(S) fallback,
/// when to wake it, and when the round is over. It owns no socket and reads no clock:
/// ``SyncRoundRunner`` performs its actions, and tests drive it on a manual clock.
///
/// The decisions it makes, each tested on the manual clock (`SyncRoundTests`):
/// - **Spacing and Kiss-o'-Death**: every burst asks the ``SourceRegistry`` first: an address a
///   RATE kiss silenced, or one a DENY or RSTR dropped, is skipped; a burst starts no earlier than
///   the spacing since the previous one to its address; each burst is an ``NTPBurst`` core, whose
///   requests and timeouts it routes.
/// - **Deadlines**: names not resolved by half the NTP deadline fail; no request starts after the
///   NTP deadline, and bursts still waiting 100 ms after it are stopped; the whole round ends by
///   its own deadline.
/// - **Enough sources**: once ``SyncPolicy/minimumSources`` targets gave samples, the others stop.
/// - **Addresses in reserve**: a sync with a need (``Setup/reservesAddresses``) asks each host's
///   addresses up to the largest odd count (3 of 4, ``addressesAskedFirst(of:)``), which outvotes as
///   many falsetickers as all of them do; the rest are asked only when those asked can no longer
///   form a majority, or a request timeout after the start without the need met.
/// - **Roughtime in parallel**: the Roughtime query starts with the round and is awaited until the
///   round's deadline; on a cold start that checks certificates it is the certificate time, and the
///   NTS key exchanges and `https://` measurements wait for it (plain NTP does not).
/// - **The fallback's start**: HTTP(S) is measured at once when no NTP target answered (while
///   Roughtime is still awaited), or once NTP and Roughtime are in when the selection needs it
///   (`needsFallback`); never when NTS mode `require` lets only authenticated sources decide.
/// - **Cancellation**: ``Event/cancel`` ends the round at once with what it has.
package struct SyncRound: Sendable {
    /// What the round is configured with.
    package struct Setup: Sendable {
        /// The NTP and NTS servers and how to query them.
        package var policy: SyncPolicy
        /// The HTTP(S) URLs of the fallback.
        package var httpURLs: [URL]
        /// The whole round ends by this long after it starts.
        package var deadline: Duration
        /// No NTP request starts later than this after the start.
        package var ntpDeadline: Duration
        /// Whether Roughtime servers are configured.
        package var usesRoughtime: Bool
        /// Against which time certificates are checked, or how it is found.
        package var certificateTime: CertificateTimeSource
        /// How long a RATE kiss silences an address.
        package var rateBackoff: Duration
        /// The longest one NTS key exchange may take.
        package var keyExchangeTimeout: Duration
        /// Whether the selection needs the HTTP(S) fallback, given what the round has gathered
        /// without it (``SyncDecision/needsFallback(_:)``).
        package var needsFallback: @Sendable (RoundEvidence) -> Bool
        /// Whether each host's addresses beyond ``SyncRound/addressesAskedFirst(of:)`` wait in
        /// reserve: for a sync with a need, which ends once the first replies meet it.
        package var reservesAddresses = false

        /// A setup; the NTP part gets at most half the round's deadline when HTTP URLs are
        /// configured beside NTP servers, so the fallback always has time left.
        package init(
            policy: SyncPolicy, httpURLs: [URL], deadline: Duration, usesRoughtime: Bool,
            certificateTime: CertificateTimeSource, rateBackoff: Duration = .seconds(64),
            keyExchangeTimeout: Duration = NTSKeyExchange.defaultTimeout,
            needsFallback: @escaping @Sendable (RoundEvidence) -> Bool
        ) {
            self.policy = policy
            self.httpURLs = httpURLs
            self.deadline = deadline
            self.ntpDeadline =
                !httpURLs.isEmpty && !policy.servers.isEmpty
                ? min(policy.deadline, deadline / 2) : policy.deadline
            self.usesRoughtime = usesRoughtime
            self.certificateTime = certificateTime
            self.rateBackoff = rateBackoff
            self.keyExchangeTimeout = keyExchangeTimeout
            self.needsFallback = needsFallback
        }

        /// Whether HTTP(S) may take part at all: not when NTS mode `require` lets only
        /// authenticated sources decide.
        var allowsHTTP: Bool {
            !httpURLs.isEmpty && !(policy.usesAuthenticatedSources && policy.ntsMode == .require)
        }
    }

    /// How long in-flight replies are awaited after the NTP deadline.
    static let replyGrace = Duration.milliseconds(100)

    let setup: Setup
    /// Etiquette state kept across rounds.
    let registry: SourceRegistry
    /// NTS associations and key-exchange back-off kept across rounds.
    let sessions: NTSSessions
    /// Where request nonces come from.
    let nonces: any NonceSource
    /// Told about every request and the round's progress.
    let progress: SyncProgressObserver?

    private var targets: [Target] = []
    /// Plain servers (by index in the policy) whose names are not resolved yet.
    private var unresolved: Set<Int> = []
    private var evidence: RoundEvidence?
    private var mapping = TimeMapping(wall: .epoch, monotonic: MonotonicInstant(sinceOrigin: .zero))
    private var certificate: (check: SyncReport.CertificateCheck?, time: CertificateTime)?
    private var roughtimePending = false
    private var httpPending = false
    private var enoughReached = false
    private var isFinished = false
    /// Whether the event being handled added a sample to a burst that goes on.
    private var provisionalDue = false

    /// A round for `setup`, not yet started.
    package init(
        setup: Setup, registry: SourceRegistry, sessions: NTSSessions, nonces: any NonceSource,
        progress: SyncProgressObserver? = nil
    ) {
        self.setup = setup
        self.registry = registry
        self.sessions = sessions
        self.nonces = nonces
        self.progress = progress
    }

    /// When the round wants ``Event/timer``; nil once it is over (or before it started).
    package private(set) var wake: MonotonicInstant?

    /// What the round has gathered so far, ordered as the report lists it.
    package var gathered: RoundEvidence? {
        guard var evidence else { return nil }
        evidence.ntp = targets.sorted { $0.order < $1.order }.map {
            RoundEvidence.Source(report: $0.report, candidate: $0.candidate)
        }
        return evidence
    }

    // MARK: Events

    /// Tells the round what happened at `now`; returns what to do.
    package mutating func handle(_ event: Event, at now: MonotonicInstant) -> [Action] {
        guard !isFinished else { return [] }
        var actions: [Action] = []
        switch event {
        case .start(let mapping): actions += start(mapping, at: now)
        case .resolved(let server, let result): actions += resolved(server, result, at: now)
        case .ntsPrepared(let server, let preparation): actions += prepared(server, preparation, at: now)
        case .datagram(let id, let bytes):
            if targets.indices.contains(id), var burst = targets[id].burst {
                let samples = burst.result.samples.count
                let step = burst.handle(bytes, at: now)
                actions += apply(step, of: burst, to: id, at: now)
                if step.wake != nil, burst.result.samples.count > samples { provisionalDue = true }
            }
        case .transportFailure(let id, let error):
            if targets.indices.contains(id), var burst = targets[id].burst {
                let step = burst.handle(failure: error, at: now)
                actions += apply(step, of: burst, to: id, at: now)
            }
        case .timer: actions += timer(at: now)
        case .roughtime(let result): actions += roughtime(result, at: now)
        case .httpMeasured(let outcomes): httpMeasured(outcomes)
        case .cancel:
            evidence?.cancelled = true
            actions += stopBursts(at: now, reason: nil)
            return actions + finish(at: now)
        case .satisfied:
            enoughReached = true
            for id in targets.indices where targets[id].isReserved {
                targets[id].isReserved = false
                targets[id].isDone = true
                targets[id].report.reason = "not asked: the addresses asked met the need"
            }
            actions += stopBursts(at: now, reason: "no sample before the need was met")
        }
        actions += advance(at: now)
        if provisionalDue, !isFinished, let evidence = provisionalEvidence {
            actions.append(.provisional(evidence))
        }
        provisionalDue = false
        return actions
    }

    /// What the round has so far for a provisional decision: ``gathered``, with each burst still
    /// running counted with the samples it has.
    var provisionalEvidence: RoundEvidence? {
        guard var evidence = gathered else { return nil }
        evidence.ntp = targets.sorted { $0.order < $1.order }.map { target in
            guard !target.isDone, let burst = target.burst else {
                return RoundEvidence.Source(report: target.report, candidate: target.candidate)
            }
            var report = target.report
            report.ntp?.query = burst.result
            guard let ntp = report.ntp, let estimate = ntp.estimate, let best = ntp.best else {
                return RoundEvidence.Source(report: report, candidate: nil)
            }
            report.status = .survivor
            return RoundEvidence.Source(
                report: report,
                candidate: Candidate(
                    burst: estimate, best: best, name: report.name, kind: report.kind,
                    certificates: report.certificateChain))
        }
        return evidence
    }

    private mutating func start(_ mapping: TimeMapping, at now: MonotonicInstant) -> [Action] {
        guard evidence == nil else { return [] }
        self.mapping = mapping
        evidence = RoundEvidence(start: now, mapping: mapping)
        var actions: [Action] = []
        if setup.usesRoughtime {
            roughtimePending = true
            actions.append(.queryRoughtime)
        }
        if case .known(let check, let time) = setup.certificateTime { certificate = (check, time) }
        let plain = setup.policy.servers.indices.filter { !setup.policy.servers[$0].usesNTS }
        unresolved = Set(plain)
        if !plain.isEmpty { actions.append(.resolve(plain.map { setup.policy.servers[$0] })) }
        for (index, server) in setup.policy.servers.enumerated() where server.usesNTS {
            var report = SyncReport.Server(server: server, address: nil, status: .timeout)
            report.ntp?.nts = NTSSourceDetails()
            targets.append(Target(order: [1, index, 0], server: server, report: report, nts: NTSState()))
        }
        if unresolved.isEmpty { progress?(.querying(addresses: targets.filter(\.isQueried).count)) }
        actions += prepareNTS(at: now)
        return actions
    }

    // MARK: NTP and NTS targets

    private mutating func resolved(
        _ server: ServerName, _ result: Result<[SocketAddress], TransportError>, at now: MonotonicInstant
    ) -> [Action] {
        guard let index = unresolved.sorted().first(where: { setup.policy.servers[$0] == server }) else {
            return []
        }
        unresolved.remove(index)
        var actions: [Action] = []
        switch result {
        case .failure(let error):
            targets.append(
                Target(
                    order: [0, index, 0], server: server,
                    report: SyncReport.Server(
                        server: server, address: nil, status: .error, reason: error.description),
                    isDone: true))
        case .success(let addresses):
            let used = addresses.prefix(setup.policy.addressesPerHost)
            let admissions = used.map {
                registry.admission(for: $0, at: now, spacing: setup.policy.query.interval)
            }
            let allowed = admissions.filter { if case .allowed = $0 { true } else { false } }.count
            var toAsk = setup.reservesAddresses ? Self.addressesAskedFirst(of: allowed) : allowed
            for (position, (address, admission)) in zip(used, admissions).enumerated() {
                guard case .allowed = admission else {
                    targets.append(
                        Target(
                            order: [0, index, position], server: server,
                            report: SyncReport.Server(
                                server: server, address: address, status: .skipped,
                                reason: admission.description),
                            isDone: true))
                    continue
                }
                targets.append(
                    Target(
                        order: [0, index, position], server: server,
                        report: SyncReport.Server(server: server, address: address, status: .timeout)))
                guard !enoughReached else {
                    targets[targets.count - 1].isDone = true
                    targets[targets.count - 1].report.reason =
                        "no sample before enough other sources answered"
                    continue
                }
                guard toAsk > 0 else {
                    targets[targets.count - 1].isReserved = true
                    targets[targets.count - 1].report.status = .skipped
                    targets[targets.count - 1].report.reason = Self.reserveReason
                    continue
                }
                toAsk -= 1
                actions += startBurst(targets.count - 1, to: address, protection: nil, at: now)
            }
        }
        if unresolved.isEmpty { progress?(.querying(addresses: targets.filter(\.isQueried).count)) }
        return actions
    }

    /// Prepares every NTS target still waiting, once the certificate time is known.
    private mutating func prepareNTS(at now: MonotonicInstant) -> [Action] {
        guard let certificate, !enoughReached else { return [] }
        var actions: [Action] = []
        for id in targets.indices where targets[id].nts?.isWaiting == true {
            targets[id].nts?.isWaiting = false
            actions += prepare(id, certificateTime: certificate.time, at: now)
        }
        return actions
    }

    /// Readies NTS target `id`: its kept association at once when usable (and etiquette lets its
    /// NTP address be asked), else a key exchange unless one failed recently.
    private mutating func prepare(_ id: TargetID, certificateTime: CertificateTime, at now: MonotonicInstant)
        -> [Action]
    {
        let server = targets[id].server
        let ntpEnd = ntpEnd
        if let association = sessions.association(for: server), association.isUsable(under: certificateTime) {
            if let address = association.knownNTPAddress {
                let admission = registry.admission(
                    for: address, at: now, spacing: setup.policy.query.interval)
                guard case .allowed = admission else {
                    return fail(id, NTSFailure(skipped: admission), address: address, at: now)
                }
                return ready(id, association: association, address: address, at: now)
            }
            targets[id].nts?.isPreparing = true
            return [
                .prepareNTS(
                    server, association: association, certificateTime: certificateTime, timeout: ntpEnd - now)
            ]
        }
        if targets[id].nts?.bursts == 0, let notBefore = sessions.backoff(for: server), notBefore > now {
            let failure = NTSFailure(
                .keBackoff,
                "NTS-KE with \(server) failed recently; next attempt in \((notBefore - now).formattedSeconds)"
            )
            return fail(id, failure, address: nil, at: now)
        }
        guard ntpEnd > now else {
            return fail(id, .timedOut(server.description, after: .zero), address: nil, at: now)
        }
        targets[id].nts?.keyExchanges += 1
        targets[id].nts?.isPreparing = true
        return [
            .prepareNTS(
                server, association: nil, certificateTime: certificateTime,
                timeout: min(ntpEnd - now, setup.keyExchangeTimeout))
        ]
    }

    private mutating func prepared(
        _ server: ServerName, _ preparation: NTSPreparation, at now: MonotonicInstant
    )
        -> [Action]
    {
        guard let id = targets.firstIndex(where: { $0.server == server && $0.nts?.isPreparing == true })
        else {
            return []
        }
        targets[id].nts?.isPreparing = false
        if preparation.keyExchanged {
            if let association = preparation.association {
                sessions.succeeded(server, with: association)
                targets[id].report.ntp?.nts?.certificateTime = association.certificateTime
            } else if let failure = preparation.failure, failure.code != .cancelled,
                failure.code != NTSFailure.certificateTimeCode
            {
                // A certificate outside its validity at the time checked against may be the local
                // clock's fault, not the server's: no back-off for it.
                sessions.failed(server, at: now)
            }
        }
        targets[id].nts?.association = preparation.association
        targets[id].report.certificateChain = preparation.association?.certificateChain ?? []
        guard let association = preparation.association, let address = preparation.ntpAddress else {
            return fail(
                id, preparation.failure ?? .timedOut(server.description, after: .zero), address: nil, at: now)
        }
        return ready(id, association: association, address: address, at: now)
    }

    /// Starts NTS target `id`'s burst with `association` to `address`.
    private mutating func ready(
        _ id: TargetID, association: NTSAssociation, address: SocketAddress, at now: MonotonicInstant
    ) -> [Action] {
        targets[id].nts?.association = association
        targets[id].report.certificateChain = association.certificateChain
        targets[id].report.ntp?.address = address
        targets[id].nts?.bursts += 1
        updateNTSDetails(id)
        return startBurst(id, to: address, protection: NTSPacketProtection(association: association), at: now)
    }

    /// Ends NTS target `id` without a burst, for `failure`.
    private mutating func fail(
        _ id: TargetID, _ failure: NTSFailure, address: SocketAddress?, at now: MonotonicInstant
    )
        -> [Action]
    {
        if let address { targets[id].report.ntp?.address = address }
        targets[id].report.status = failure.code == .skipped ? .skipped : .error
        targets[id].report.reason = failure.reason
        targets[id].isDone = true
        updateNTSDetails(id)
        return []
    }

    private mutating func updateNTSDetails(_ id: TargetID) {
        guard let state = targets[id].nts else { return }
        let association = state.association
        var details = targets[id].report.ntp?.nts ?? NTSSourceDetails()
        details.keyExchangeAddress = association?.keys.keyExchangeAddress
        details.aead = association?.keys.aead
        details.cookies = association?.cookieCount ?? 0
        details.keyExchanges = state.keyExchanges
        if state.keyExchanges == 0 { details.certificateTime = nil }
        targets[id].report.ntp?.nts = details
    }

    /// Starts target `id`'s burst to `address`, spaced from the previous one to it.
    private mutating func startBurst(
        _ id: TargetID, to address: SocketAddress, protection: (any PacketProtection)?,
        at now: MonotonicInstant
    ) -> [Action] {
        var notBefore: MonotonicInstant?
        switch registry.admission(for: address, at: now, spacing: setup.policy.query.interval) {
        case .allowed(let at): notBefore = at
        case let refused:
            targets[id].report.status = .skipped
            targets[id].report.reason = refused.description
            targets[id].isDone = true
            return []
        }
        var burst = NTPBurst(
            to: address, options: setup.policy.query, mapping: mapping, deadline: ntpEnd,
            notBefore: notBefore,
            nonces: nonces, protection: protection, progress: progress)
        let step = burst.start(at: now)
        return apply(step, of: burst, to: id, at: now)
    }

    /// Carries out a burst's step: its datagrams, its wake-up, and its end.
    private mutating func apply(
        _ step: CoreStep, of burst: NTPBurst, to id: TargetID, at now: MonotonicInstant
    )
        -> [Action]
    {
        targets[id].burst = burst
        targets[id].burstWake = step.wake
        var actions = step.send.map { Action.send($0, target: id, address: burst.address) }
        if step.wake == nil, let result = burst.outcome {
            actions += finishBurst(id, result, at: now)
        }
        return actions
    }

    /// Records the end of target `id`'s burst; an NTS burst that ended without a sample because
    /// the server asked for new keys (NAK) or the cookies ran out gets one new key exchange if the
    /// deadline allows.
    private mutating func finishBurst(_ id: TargetID, _ result: ServerQueryResult, at now: MonotonicInstant)
        -> [Action]
    {
        registry.record(result, at: now, rateBackoff: setup.rateBackoff)
        var result = result
        if let earlier = targets[id].nts?.earlier, earlier.address == result.address {
            result.exchanges = earlier.exchanges + result.exchanges
        }
        targets[id].burst = nil
        targets[id].burstWake = nil
        var actions: [Action] = [.close(id)]
        if let state = targets[id].nts, let association = state.association, result.best == nil,
            association.needsKeyExchange, state.bursts < 2, ntpEnd - now > setup.policy.query.timeout,
            !enoughReached, let certificate
        {
            targets[id].nts?.earlier = result
            targets[id].nts?.association = nil
            targets[id].report.ntp?.query = result
            return actions + prepare(id, certificateTime: certificate.time, at: now)
        }
        targets[id].report.ntp?.query = result
        if let failure = result.failure {
            targets[id].report.status = Self.status(of: failure)
            targets[id].report.reason = failure.description
        } else if let inconsistency = targets[id].report.ntp?.inconsistency {
            targets[id].report.status = .inconsistent
            targets[id].report.reason = inconsistency.description
        } else {
            targets[id].report.status = .survivor
            if let ntp = targets[id].report.ntp, let estimate = ntp.estimate, let best = ntp.best {
                let report = targets[id].report
                targets[id].candidate = Candidate(
                    burst: estimate, best: best, name: report.name, kind: report.kind,
                    certificates: report.certificateChain)
            }
        }
        targets[id].isDone = true
        updateNTSDetails(id)
        let answered = targets.filter { $0.isDone && $0.report.ntp?.best != nil }.count
        // Until every name is resolved the count of targets is not known: the minimum itself.
        if let minimum = setup.policy.minimumSources,
            answered >= (unresolved.isEmpty ? min(max(1, minimum), targets.count) : max(1, minimum))
        {
            enoughReached = true
            actions += stopBursts(at: now, reason: "no sample before enough other sources answered")
        }
        return actions
    }

    /// Stops every burst still running (its record ends with what it has) and every target not
    /// started, naming `reason` for those that never sent.
    private mutating func stopBursts(at now: MonotonicInstant, reason: String?) -> [Action] {
        var actions: [Action] = []
        for id in targets.indices where !targets[id].isDone {
            if var burst = targets[id].burst {
                burst.cancel(at: now)
                targets[id].burst = burst
                if let result = burst.outcome { actions += finishBurst(id, result, at: now) }
                if let reason, result(of: id)?.best == nil { targets[id].report.reason = reason }
            }
            if !targets[id].isDone {
                targets[id].isDone = true
                targets[id].nts?.isWaiting = false
                targets[id].nts?.isPreparing = false
                if let reason, !targets[id].isReserved { targets[id].report.reason = reason }
                targets[id].isReserved = false
                updateNTSDetails(id)
            }
        }
        return actions
    }

    /// Target `id`'s burst record, once it has one.
    private func result(of id: TargetID) -> ServerQueryResult? { targets[id].report.ntp?.query }

    private static func status(of failure: QueryFailure) -> SyncReport.SourceStatus {
        switch failure {
        case .timedOut: return .timeout
        case .refused: return .refused
        case .kissOfDeath: return .kissOfDeath
        case .allRejected: return .rejected
        case .transport: return .error
        }
    }

    // MARK: Time

    private var started: MonotonicInstant { evidence?.start ?? MonotonicInstant(sinceOrigin: .zero) }
    /// No NTP request starts at or after this.
    private var ntpEnd: MonotonicInstant { started + setup.ntpDeadline }
    /// Names unresolved at this instant fail.
    private var resolutionEnd: MonotonicInstant { started + setup.ntpDeadline / 2 }
    /// The round ends by this.
    private var roundEnd: MonotonicInstant { started + setup.deadline }

    private mutating func timer(at now: MonotonicInstant) -> [Action] {
        var actions: [Action] = []
        for id in targets.indices {
            guard let wake = targets[id].burstWake, wake <= now, var burst = targets[id].burst else {
                continue
            }
            let step = burst.handleTimer(at: now)
            actions += apply(step, of: burst, to: id, at: now)
        }
        if !unresolved.isEmpty, now >= resolutionEnd {
            let limit = (setup.ntpDeadline / 2).formattedSeconds
            for index in unresolved.sorted() {
                let server = setup.policy.servers[index]
                let error = TransportError.resolutionFailed(
                    host: server.host, reason: "name resolution took longer than \(limit)")
                actions += resolved(server, .failure(error), at: now)
            }
        }
        if now >= ntpEnd + Self.replyGrace {
            actions += stopBursts(at: now, reason: nil)
        }
        if roughtimePending, now >= roundEnd {
            // Roughtime did not answer in time: the round goes on without it.
            roughtimePending = false
            if certificate == nil { certificate = (.bootstrap, .unchecked) }
            actions += prepareNTS(at: now)
        }
        return actions
    }

    // MARK: Roughtime and HTTP

    private mutating func roughtime(_ result: RoughtimeQueryResult, at now: MonotonicInstant) -> [Action] {
        guard roughtimePending else { return [] }
        roughtimePending = false
        evidence?.roughtime = result
        evidence?.roughtimeServers = result.servers.map {
            RoundEvidence.Source(report: SyncReport.Server($0), candidate: Candidate(roughtime: $0))
        }
        if certificate == nil, case .roughtime(let floor) = setup.certificateTime {
            // The exception to one vote: before any certificate can be checked, the Roughtime
            // servers' own agreement is the certificate time; each server still votes in the
            // selection.
            if case .success(let agreement) = result.agreement,
                floor.map({ agreement.interval.notBefore($0) != nil }) ?? true
            {
                let seconds = Int64((agreement.interval.midpoint.sinceEpoch / .seconds(1)).rounded(.down))
                certificate = (.roughtime, .at(secondsSince1970: seconds))
            } else {
                certificate = (.bootstrap, .unchecked)
            }
            return prepareNTS(at: now)
        }
        return []
    }

    private mutating func httpMeasured(_ outcomes: [Result<HTTPTimeMeasurement, HTTPTimeError>]) {
        guard httpPending else { return }
        httpPending = false
        let sources = zip(setup.httpURLs, outcomes).map { url, outcome in
            switch outcome {
            case .success(let measurement):
                RoundEvidence.Source(
                    report: SyncReport.Server(measurement, status: .survivor),
                    candidate: Candidate(http: measurement))
            case .failure(let error):
                RoundEvidence.Source(report: SyncReport.Server(url: url, error: error), candidate: nil)
            }
        }
        evidence?.http = sources
    }

    /// Starts the HTTP(S) measurements with the time left, or reports every URL skipped when
    /// none is.
    private mutating func startHTTP(at now: MonotonicInstant) -> [Action] {
        guard let certificate else { return [] }
        let left = roundEnd - now
        guard left > .milliseconds(1) else {
            let skipped = setup.httpURLs.map {
                RoundEvidence.Source(
                    report: SyncReport.Server(
                        url: $0, error: HTTPTimeError(.timeout, "no time left before the sync deadline")),
                    candidate: nil)
            }
            evidence?.http = skipped
            return []
        }
        httpPending = true
        return [.measureHTTP(within: left, certificateTime: certificate.time)]
    }

    /// Whether every NTP and NTS target is done.
    private var ntpIsDone: Bool { unresolved.isEmpty && targets.allSatisfy(\.isDone) }

    /// What follows from the state after an event: the early fallback, the fallback the selection
    /// needs, or the end of the round; and the next wake-up.
    private mutating func advance(at now: MonotonicInstant) -> [Action] {
        guard !isFinished else { return [] }
        var actions = releaseReserveIfNeeded(at: now)
        guard var evidence = gathered else { return actions }
        if certificate != nil {
            evidence.certificateCheck = certificate?.check
            evidence.certificateTime = certificate?.time ?? .wallClock
            self.evidence?.certificateCheck = evidence.certificateCheck
            self.evidence?.certificateTime = evidence.certificateTime
        }
        if ntpIsDone, setup.allowsHTTP, certificate != nil, evidence.http == nil, !httpPending,
            !evidence.hasNTPAnswer
        {
            // Without an NTP answer the fallback is needed whatever Roughtime says: it runs while
            // Roughtime's answer is awaited.
            actions += startHTTP(at: now)
        } else if ntpIsDone, !roughtimePending, certificate != nil, evidence.http == nil, !httpPending,
            !setup.httpURLs.isEmpty, setup.needsFallback(evidence)
        {
            if setup.allowsHTTP {
                actions += startHTTP(at: now)
            } else {
                let unused = setup.httpURLs.map {
                    RoundEvidence.Source(
                        report: SyncReport.Server(
                            url: $0, notMeasured: .unauthenticated,
                            reason:
                                "not used: NTS mode require lets only authenticated (NTS, Roughtime) sources decide the time"
                        ), candidate: nil)
                }
                self.evidence?.http = unused
            }
        }
        if ntpIsDone, !roughtimePending, !httpPending, certificate != nil {
            return actions + finish(at: now)
        }
        wake = nextWake()
        return actions
    }

    private mutating func finish(at now: MonotonicInstant) -> [Action] {
        guard var evidence = gathered else { return [] }
        evidence.end = now
        isFinished = true
        wake = nil
        let open = targets.indices.filter { targets[$0].burst != nil }
        return open.map { Action.close($0) } + [.finish(evidence)]
    }

    private func nextWake() -> MonotonicInstant? {
        var candidates = targets.compactMap(\.burstWake)
        if !unresolved.isEmpty { candidates.append(resolutionEnd) }
        if !ntpIsDone { candidates.append(ntpEnd + Self.replyGrace) }
        if roughtimePending { candidates.append(roundEnd) }
        if targets.contains(where: \.isReserved) { candidates.append(reserveEnd) }
        return candidates.min()
    }

    // MARK: Addresses in reserve

    /// How many of `count` addresses of a host a sync with a need asks first: the largest odd
    /// number not above it (3 of 4, 5 of 6), since `2f + 1` sources outvote `f` falsetickers as
    /// `2f + 2` do; one or two are all asked (two can at least tell that they disagree).
    package static func addressesAskedFirst(of count: Int) -> Int {
        count <= 2 ? max(count, 0) : (count - 1) / 2 * 2 + 1
    }

    static let reserveReason = "held in reserve: the other addresses outvote as many falsetickers"

    /// The reserve is asked by this, if the need is not met before.
    private var reserveEnd: MonotonicInstant { started + setup.policy.query.timeout }

    /// Asks the addresses held in reserve once those asked cannot meet the need: so many of them
    /// ended without a sample that the rest are no strict majority of them, or a request timeout
    /// has passed since the start (replies that slow, or bounds too wide, would have met it by then).
    private mutating func releaseReserveIfNeeded(at now: MonotonicInstant) -> [Action] {
        guard targets.contains(where: \.isReserved) else { return [] }
        let asked = targets.filter { !$0.isReserved && $0.isQueried }
        let failed = asked.filter { $0.isDone && $0.report.ntp?.best == nil }.count
        guard failed * 2 >= asked.count || now >= reserveEnd else { return [] }
        var actions: [Action] = []
        for id in targets.indices where targets[id].isReserved {
            targets[id].isReserved = false
            guard !enoughReached, now < ntpEnd, let address = targets[id].report.ntp?.address else {
                targets[id].isDone = true
                continue
            }
            targets[id].report.status = .timeout
            targets[id].report.reason = nil
            actions += startBurst(id, to: address, protection: nil, at: now)
        }
        return actions
    }
}

extension SyncRound {
    /// One NTP or NTS target of the round.
    struct Target: Sendable {
        /// Where it is listed: plain servers (0) before NTS ones (1), then the server's place in
        /// the configuration and the address's in the resolver's answer.
        var order: [Int]
        var server: ServerName
        var report: SyncReport.Server
        /// Its evidence once its burst gave consistent samples.
        var candidate: Candidate?
        var burst: NTPBurst?
        var burstWake: MonotonicInstant?
        var isDone = false
        var nts: NTSState?
        /// Not asked yet: held in reserve (``Setup/reservesAddresses``).
        var isReserved = false

        /// Whether the round queries it (it was not skipped or failed before any request, and is
        /// not held in reserve).
        var isQueried: Bool { !isReserved && !(isDone && burst == nil && report.ntp?.query == nil) }
    }

    /// An NTS target's association and key exchanges.
    struct NTSState: Sendable {
        /// Waiting for the certificate time before it can be prepared.
        var isWaiting = true
        /// A preparation (key exchange, NTP address) is under way.
        var isPreparing = false
        var association: NTSAssociation?
        var keyExchanges = 0
        /// Bursts started: one, and a second after a new key exchange at most.
        var bursts = 0
        /// The burst before a new key exchange (after a NAK or running out of cookies).
        var earlier: ServerQueryResult?
    }
}

extension Array where Element == Int {
    /// Lexicographic order, for listing targets.
    fileprivate static func < (lhs: [Int], rhs: [Int]) -> Bool {
        lhs.lexicographicallyPrecedes(rhs)
    }
}
