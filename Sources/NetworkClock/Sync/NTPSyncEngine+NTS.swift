import NTSClient
import NetClockTLS
import NetClockPlatform
import SNTP
import TimeBase

extension NTPSyncEngine {
    /// One NTS query (a key exchange when needed, then a burst of authenticated requests) to an
    /// NTS-KE server, honouring and updating the etiquette state of the NTP address it uses.
    /// Blocks; stops within one poll slice once `isCancelled` returns true.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    func ntsBurst(
        to server: ServerName, deadline: MonotonicInstant, certificateTime: CertificateTime = .wallClock,
        isCancelled: () -> Bool = { false }
    ) -> NTSQueryOutcome {
        var query = NTSQuery(
            client: client, trust: policy.trustRoots.tlsTrustRoots, family: policy.family,
            sessions: ntsSessions)
        query.certificateTime = certificateTime
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
