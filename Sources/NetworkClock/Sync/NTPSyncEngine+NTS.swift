import NTSClient
import NetClockPlatform
import SNTP
import TimeBase

extension NTPSyncEngine {
    /// One NTS query (a key exchange when needed, then a burst of authenticated requests) to an
    /// NTS-KE server, honouring and updating the etiquette state of the NTP address it uses.
    /// Blocks; stops within one poll slice once `isCancelled` returns true.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    func ntsBurst(
        to server: ServerName, deadline: MonotonicInstant, isCancelled: () -> Bool = { false }
    ) -> NTSQueryOutcome {
        var query = NTSQuery(
            client: client, trust: policy.trustRoots.tlsTrustRoots, family: policy.family,
            sessions: ntsSessions)
        query.certificateTime = policy.certificateTime
        // A known NTP address that etiquette keeps silent is not worth a key exchange.
        if let address = query.knownNTPAddress(of: server) {
            let admission = registry.admission(
                for: address, at: client.monotonic.now(), spacing: policy.query.interval)
            if case .allowed = admission {
            } else {
                return NTSQueryOutcome(
                    server: server, keyExchanges: 0, ntpAddress: address,
                    failure: NTSFailure(skipped: admission))
            }
        }
        return query.query(server, options: policy.query, deadline: deadline, isCancelled: isCancelled) {
            address, protection in
            burst(to: address, deadline: deadline, protection: protection, isCancelled: isCancelled)
        }
    }
}

extension NTPSyncEngine {
    /// The candidates allowed to decide the time under the policy's NTS mode; the others' reports
    /// are marked ``SyncReport/SyncReport.SourceStatus/unauthenticated`` with the reason. Without NTS servers
    /// every candidate is admitted.
    static func admit(
        _ candidates: [Candidate], from reports: inout [SyncReport.NTPSource], policy: SyncPolicy
    )
        -> [Candidate]
    {
        guard policy.usesNTS else { return candidates }
        let authenticated = candidates.filter { reports[$0.index].isAuthenticated }
        let reason: String
        switch policy.ntsMode {
        case .mix:
            return candidates
        case .prefer:
            guard !authenticated.isEmpty else { return candidates }
            reason = "not used: authenticated (NTS) sources answered, and NTS mode prefer uses only them"
        case .require:
            reason = "not used: NTS mode require lets only authenticated (NTS) sources decide the time"
        }
        for candidate in candidates where !reports[candidate.index].isAuthenticated {
            reports[candidate.index].status = .unauthenticated
            reports[candidate.index].reason = reason
        }
        return authenticated
    }
}
