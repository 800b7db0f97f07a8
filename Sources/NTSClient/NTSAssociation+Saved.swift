import NTS
import NetClockPlatform
import NetClockTLS

extension NTSAssociation {
    /// An association as it is kept on disk between processes (RFC 8915 §6: the keys and unused
    /// cookies; nothing that identifies the client to anyone but the server).
    package struct Saved: Hashable, Sendable {
        /// The NTS-KE address connected to, as `host` (numeric) and `port`.
        package var keyExchangeHost: String
        /// Its port.
        package var keyExchangePort: UInt16
        /// The NTP host the key exchange named.
        package var ntpHost: String
        /// The NTP port.
        package var ntpPort: UInt16
        /// The AEAD algorithm.
        package var aead: UInt16
        /// The client-to-server key.
        package var clientToServer: [UInt8]
        /// The server-to-client key.
        package var serverToClient: [UInt8]
        /// The unused cookies, oldest first.
        package var cookies: [[UInt8]]
        /// Whether the key exchange checked no certificate time (a cold start).
        package var isBootstrapped = false
        /// The validity periods of the chain the key exchange verified, leaf first, so that a later
        /// process re-checks them against its own trusted time before it spends a cookie.
        package var certificateChain: [CertificateValidity] = []

        /// Creates a saved association from its parts.
        package init(
            keyExchangeHost: String, keyExchangePort: UInt16, ntpHost: String, ntpPort: UInt16, aead: UInt16,
            clientToServer: [UInt8], serverToClient: [UInt8], cookies: [[UInt8]]
        ) {
            self.keyExchangeHost = keyExchangeHost
            self.keyExchangePort = keyExchangePort
            self.ntpHost = ntpHost
            self.ntpPort = ntpPort
            self.aead = aead
            self.clientToServer = clientToServer
            self.serverToClient = serverToClient
            self.cookies = cookies
        }
    }

    /// This association's keys and unused cookies, to be kept; nil when it cannot be used again.
    package func saved() -> Saved? {
        guard !needsKeyExchange else { return nil }
        return saved(cookies: cookieSnapshot())
    }

    /// The association as kept, with `cookies`.
    private func saved(cookies: [[UInt8]]) -> Saved {
        var saved = Saved(
            keyExchangeHost: keys.keyExchangeAddress.host, keyExchangePort: keys.keyExchangeAddress.port,
            ntpHost: keys.ntpHost, ntpPort: keys.ntpPort, aead: keys.aead,
            clientToServer: keys.clientToServer, serverToClient: keys.serverToClient, cookies: cookies)
        saved.isBootstrapped = certificateTime == .unchecked
        saved.certificateChain = certificateChain
        return saved
    }

    /// This association's keys and every unused cookie, which leave it (see
    /// ``NTSSessions/handOverAssociations()``); nil when it had none or was NAKed.
    package func handOver() -> Saved? {
        let cookies = takeAllCookies()
        guard !cookies.isEmpty else { return nil }
        return saved(cookies: cookies)
    }

    /// An association from what ``saved()`` kept; nil when any value is out of range (a corrupt or
    /// edited file costs only a new key exchange).
    package convenience init?(restoring saved: Saved) {
        guard saved.aead == NTSKEConstants.aesSIVCMAC256,
            saved.clientToServer.count == NTSKeyExport.aesSIVKeyLength,
            saved.serverToClient.count == NTSKeyExport.aesSIVKeyLength,
            (1...Self.cookieTarget).contains(saved.cookies.count),
            saved.cookies.allSatisfy({ (1...NTSKEResponse.maximumCookieLength).contains($0.count) }),
            saved.keyExchangePort > 0, saved.ntpPort > 0,
            (1...NTSKEResponse.maximumServerLength).contains(saved.ntpHost.utf8.count),
            saved.ntpHost.utf8.allSatisfy({ (0x21...0x7e).contains($0) }),
            let address = SocketAddress(numericHost: saved.keyExchangeHost, port: saved.keyExchangePort)
        else { return nil }
        self.init(
            NTSKeyExchangeResult(
                keyExchangeAddress: address, ntpHost: saved.ntpHost, ntpPort: saved.ntpPort, aead: saved.aead,
                clientToServerKey: saved.clientToServer, serverToClientKey: saved.serverToClient,
                cookies: saved.cookies, warnings: [],
                certificateTime: saved.isBootstrapped ? .unchecked : .wallClock,
                certificateChain: saved.certificateChain))
    }
}
