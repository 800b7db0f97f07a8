import NetClockPlatform
import NetClockTLS

/// What a sync learned about one NTS server's association: where the key exchange went, the
/// algorithm agreed, how many cookies remain, and whether this sync ran a key exchange.
package struct NTSSourceDetails: Hashable, Sendable {
    /// The NTS-KE address connected to, once a key exchange succeeded.
    package var keyExchangeAddress: SocketAddress?
    /// The AEAD algorithm agreed (15 for AES-SIV-CMAC-256).
    package var aead: UInt16?
    /// The unused cookies held after the sync.
    package var cookies: Int
    /// Key exchanges this sync ran (0 when cookies of an earlier one were spent).
    package var keyExchanges: Int
    /// The time this sync's key exchange checked the server's certificates against; nil when it
    /// ran none.
    package var certificateTime: CertificateTime?
    /// The validity periods of the chain the association's key exchange verified, leaf first.
    package var certificateChain: [CertificateValidity] = []

    /// Creates details.
    package init(
        keyExchangeAddress: SocketAddress? = nil, aead: UInt16? = nil, cookies: Int = 0, keyExchanges: Int = 0
    ) {
        self.keyExchangeAddress = keyExchangeAddress
        self.aead = aead
        self.cookies = cookies
        self.keyExchanges = keyExchanges
    }
}
