import NTSClient
import NetClockPlatform
import SNTP

extension NTPSyncEngine {
    /// One NTS query (a key exchange when needed, then a burst of authenticated requests) to an
    /// NTS-KE server, honouring and updating the etiquette state of the NTP address it uses.
    /// Blocks; stops within one poll slice once `isCancelled` returns true.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    func ntsBurst(
        to server: ServerName, deadline: MonotonicInstant, isCancelled: () -> Bool = { false }
    ) -> NTSQueryOutcome {
        let query = NTSQuery(
            client: client, trust: policy.trustRoots.tlsTrustRoots, family: policy.family,
            sessions: ntsSessions)
        let monotonic = client.monotonic
        if let address = query.knownNTPAddress(of: server) {
            let entry = registry.entry(for: address)
            if let code = entry.dropped {
                return NTSQueryOutcome(
                    server: server, keyExchanges: 0, ntpAddress: address,
                    failure: NTSFailure(code: "dropped", reason: "dropped after Kiss-o'-Death \(code)"))
            }
            if let notBefore = entry.notBefore, notBefore > monotonic.now() {
                return NTSQueryOutcome(
                    server: server, keyExchanges: 0, ntpAddress: address,
                    failure: NTSFailure(
                        code: "backoff",
                        reason: "backing off for \((notBefore - monotonic.now()).formattedSeconds)"))
            }
            if let last = entry.lastSend {
                let wait = policy.query.interval - (monotonic.now() - last)
                if wait > .zero && monotonic.now() + wait < deadline {
                    CancellableWait.sleep(wait, isCancelled: isCancelled)
                }
            }
        }
        let outcome = query.query(server, options: policy.query, deadline: deadline, isCancelled: isCancelled)
        if let result = outcome.result { record(result) }
        return outcome
    }
}
