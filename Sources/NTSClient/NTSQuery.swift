import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// Queries NTS servers (RFC 8915): a key exchange when no usable association exists, then a
/// burst of NTS-protected requests to the NTP server it named, every reply authenticated.
///
/// When the server answers with an NTS NAK or the cookies run out before the burst gave a
/// sample, one new key exchange and one more burst follow if the deadline allows; never more, and
/// a failed key exchange backs the server off (``NTSSessions``).
package struct NTSQuery: Sendable {
    /// The SNTP client whose exchange, validation and clocks the bursts use.
    package var client: SNTPClient
    /// Whom the NTS-KE TLS connections trust.
    package var trust: TLSClientConfiguration.TrustRoots
    /// The address family of the NTS-KE and NTP addresses.
    package var family: AddressFamily
    /// The associations and back-off shared across queries.
    package var sessions: NTSSessions
    /// The longest one key exchange may take.
    package var keyExchangeTimeout: Duration
    /// Against which time key exchanges check the servers' certificates.
    package var certificateTime: CertificateTime = .wallClock

    /// A query engine.
    package init(
        client: SNTPClient = SNTPClient(), trust: TLSClientConfiguration.TrustRoots = .system,
        family: AddressFamily = .any, sessions: NTSSessions = NTSSessions(),
        keyExchangeTimeout: Duration = NTSKeyExchange.defaultTimeout
    ) {
        self.client = client
        self.trust = trust
        self.family = family
        self.sessions = sessions
        self.keyExchangeTimeout = keyExchangeTimeout
    }

    /// Queries `server` (an NTS-KE server) with a burst of `options.samples` NTS requests, all
    /// before `deadline` on the client's monotonic clock.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    package func query(
        _ server: ServerName, options: QueryOptions, deadline: MonotonicInstant,
        isCancelled: () -> Bool = { false }
    ) -> NTSQueryOutcome {
        query(server, options: options, deadline: deadline, isCancelled: isCancelled) { address, protection in
            client.query(
                address, options: options, deadline: deadline, protection: protection,
                isCancelled: isCancelled)
        }
    }

    /// Queries `server` as ``query(_:options:deadline:isCancelled:)`` does, sending each burst of
    /// protected requests with `burst`: the sync engine passes its own, which applies the
    /// address's etiquette exactly as for plain NTP.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    package func query(
        _ server: ServerName, options: QueryOptions, deadline: MonotonicInstant,
        isCancelled: () -> Bool = { false },
        burst: (SocketAddress, NTSPacketProtection) -> ServerQueryResult
    ) -> NTSQueryOutcome {
        var outcome = NTSQueryOutcome(server: server, keyExchanges: 0)
        for attempt in 0..<2 {
            let association: NTSAssociation
            if let existing = sessions.association(for: server), existing.isUsable(under: certificateTime) {
                association = existing
            } else {
                let now = client.monotonic.now()
                if let notBefore = sessions.backoff(for: server), notBefore > now, attempt == 0 {
                    outcome.failure = NTSFailure(
                        .keBackoff,
                        "NTS-KE with \(server) failed recently; next attempt in "
                            + (notBefore - now).formattedSeconds)
                    return outcome
                }
                let left = deadline - now
                guard left > .zero else {
                    outcome.failure = outcome.failure ?? .timedOut(server.description, after: .zero)
                    return outcome
                }
                do {
                    outcome.keyExchanges += 1
                    let result = try NTSKeyExchange.run(
                        with: server, trust: trust, family: family, certificateTime: certificateTime,
                        timeout: min(left, keyExchangeTimeout), isCancelled: isCancelled)
                    association = NTSAssociation(result)
                    sessions.succeeded(server, with: association)
                } catch {
                    // A certificate outside its validity at the time checked against may be the
                    // local clock's fault, not the server's: no back-off for it.
                    if error.code != .cancelled && error.code != NTSFailure.certificateTimeCode {
                        sessions.failed(server, at: client.monotonic.now())
                    }
                    outcome.failure = error
                    return outcome
                }
            }
            outcome.association = association
            let address: SocketAddress
            do {
                address = try association.ntpAddress(family: family)
            } catch {
                outcome.failure = NTSFailure(
                    .ntpResolutionFailed,
                    "the NTP server \(association.keys.ntpHost) named by \(server): \(error)")
                return outcome
            }
            outcome.ntpAddress = address
            let protection = NTSPacketProtection(association: association)
            var result = burst(address, protection)
            if let earlier = outcome.result, earlier.address == result.address {
                // The record keeps the first burst's NAK or exhausted cookies as well.
                result.exchanges = earlier.exchanges + result.exchanges
            }
            outcome.result = result
            outcome.failure = nil
            // A NAK or running dry without a sample: one fresh key exchange, if time is left.
            // Cheapest first: the association rarely needs a key exchange.
            guard association.needsKeyExchange, result.best == nil, !isCancelled(),
                deadline - client.monotonic.now() > options.timeout
            else { break }
        }
        return outcome
    }

    /// The NTP address an existing association with `server` would use, when it names no other
    /// host than the key exchange's (known without a lookup).
    package func knownNTPAddress(of server: ServerName) -> SocketAddress? {
        sessions.association(for: server)?.knownNTPAddress
    }
}
