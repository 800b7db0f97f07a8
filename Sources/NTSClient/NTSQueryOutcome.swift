import NetClockPlatform
import SNTP
import TimeValues

/// What querying one NTS server produced: the association used, how many key exchanges it took,
/// the NTP address queried and the burst's record; or why there was no burst.
package struct NTSQueryOutcome: Sendable {
    /// The NTS-KE server as configured.
    package var server: ServerName
    /// The association the burst used (its keys and, afterwards, the cookies left).
    package var association: NTSAssociation?
    /// Key exchanges run for this query (0 when cookies from an earlier one were used).
    package var keyExchanges: Int
    /// The NTP address queried.
    package var ntpAddress: SocketAddress?
    /// The burst's record: every request, its outcome and the datagrams rejected.
    package var result: ServerQueryResult?
    /// Why no burst produced samples before it could start: a failed key exchange, an NTP name
    /// that does not resolve, a back-off.
    package var failure: NTSFailure?

    /// Creates an outcome.
    package init(
        server: ServerName, association: NTSAssociation? = nil, keyExchanges: Int = 0,
        ntpAddress: SocketAddress? = nil, result: ServerQueryResult? = nil, failure: NTSFailure? = nil
    ) {
        self.server = server
        self.association = association
        self.keyExchanges = keyExchanges
        self.ntpAddress = ntpAddress
        self.result = result
        self.failure = failure
    }

    /// The NTS-KE address connected to.
    package var keyExchangeAddress: SocketAddress? { association?.keys.keyExchangeAddress }
    /// The AEAD algorithm agreed.
    package var aead: UInt16? { association?.keys.aead }
    /// The unused cookies the association holds now.
    package var cookiesHeld: Int { association?.cookieCount ?? 0 }
}
