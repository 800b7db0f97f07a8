import NTS
import NetClockPlatform
import NetClockTLS
import Synchronization

/// The state an NTS client keeps for one NTS-KE server between exchanges (RFC 8915 §5.7): the
/// keys of the last key exchange, the unused cookies (each spent once), and whether the server
/// asked for a new key exchange (an NTS NAK).
///
/// Thread-safe: bursts of several syncs may share it.
package final class NTSAssociation: Sendable {
    /// The most cookies kept, as RFC 8915 §5.7 suggests (and what placeholders refill to).
    package static let cookieTarget = 8

    /// What a key exchange fixed for the association's lifetime.
    package struct Keys: Sendable {
        /// The NTS-KE server's address.
        package var keyExchangeAddress: SocketAddress
        /// The NTP host and port named by the key exchange.
        package var ntpHost: String
        /// The NTP port named by the key exchange.
        package var ntpPort: UInt16
        /// The AEAD algorithm (15).
        package var aead: UInt16
        /// The client-to-server key.
        package var clientToServer: [UInt8]
        /// The server-to-client key.
        package var serverToClient: [UInt8]
    }

    /// The mutable part.
    private struct State {
        var cookies: [[UInt8]]
        var negativelyAcknowledged = false
    }

    /// The keys of the key exchange that started the association.
    package let keys: Keys
    /// The time the key exchange checked the server's certificates against:
    /// ``CertificateTime/unchecked`` for a cold start, whose association a later sync with trusted
    /// time does not spend (it runs a strictly checked key exchange instead).
    package let certificateTime: CertificateTime
    /// The validity periods of the chain the key exchange verified, leaf first (empty for an
    /// association restored from a file).
    package let certificateChain: [CertificateValidity]
    private let state: Mutex<State>
    /// The NTP server's address when the key exchange named no other host than its own (known
    /// without a lookup); worked out once, not per query.
    package let knownNTPAddress: SocketAddress?
    /// The client-to-server key's AES-SIV schedules, made once for every request of the
    /// association (or why OpenSSL could not make them).
    let sealing: Result<AESSIVKey, AESSIVError>
    /// The server-to-client key's, for every reply.
    let opening: Result<AESSIVKey, AESSIVError>

    /// An association from a finished key exchange.
    package init(_ result: NTSKeyExchangeResult) {
        keys = Keys(
            keyExchangeAddress: result.keyExchangeAddress, ntpHost: result.ntpHost, ntpPort: result.ntpPort,
            aead: result.aead, clientToServer: result.clientToServerKey,
            serverToClient: result.serverToClientKey)
        state = Mutex(State(cookies: Array(result.cookies.prefix(Self.cookieTarget))))
        sealing = Result { () throws(AESSIVError) in try AESSIVKey(result.clientToServerKey) }
        opening = Result { () throws(AESSIVError) in try AESSIVKey(result.serverToClientKey) }
        certificateTime = result.certificateTime
        certificateChain = result.certificateChain
        knownNTPAddress =
            result.ntpHost == result.keyExchangeAddress.host
            ? result.keyExchangeAddress.withPort(result.ntpPort) : nil
    }

    /// Takes the oldest unused cookie (it is never handed out again), with how many remain.
    package func takeCookie() -> (cookie: [UInt8], remaining: Int)? {
        state.withLock { state in
            guard !state.cookies.isEmpty else { return nil }
            let cookie = state.cookies.removeFirst()
            return (cookie, state.cookies.count)
        }
    }

    /// Keeps the cookies of an authenticated reply's decrypted `plaintext` where they lie, each
    /// copied once into the association, up to ``cookieTarget``; none when it is malformed.
    package func add(cookiesIn plaintext: UnsafeRawBufferPointer) throws(NTSError) {
        try state.withLock { (state) throws(NTSError) in
            try NTSEncryptedFields.forEachCookie(inPlaintext: plaintext) { cookie in
                if state.cookies.count < Self.cookieTarget { state.cookies.append(Array(cookie)) }
            }
        }
    }

    /// The unused cookies held.
    package var cookieCount: Int { state.withLock { $0.cookies.count } }

    /// Removes every unused cookie and returns them, oldest first; none after an NTS NAK (the
    /// server can no longer open them). The association then needs a key exchange.
    func takeAllCookies() -> [[UInt8]] {
        state.withLock { state in
            let cookies = state.negativelyAcknowledged ? [] : state.cookies
            state.cookies = []
            return cookies
        }
    }

    /// The unused cookies, oldest first, without spending them.
    func cookieSnapshot() -> [[UInt8]] { state.withLock { $0.cookies } }

    /// Records an NTS NAK: the server cannot use our cookies, so the next query runs a new key
    /// exchange.
    package func markNegativelyAcknowledged() {
        state.withLock { $0.negativelyAcknowledged = true }
    }

    /// Whether the association can no longer be used: out of cookies, or NAKed.
    package var needsKeyExchange: Bool {
        state.withLock { $0.negativelyAcknowledged || $0.cookies.isEmpty }
    }
}
