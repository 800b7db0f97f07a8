import NTS
import SNTP
import TimeValues

extension FakeNTSServer {
    /// Everything a fake NTS server does: where it listens, which certificate it serves, how wrong
    /// its clock is, what it says in its NTP headers, and how it misbehaves.
    ///
    /// `host`, `kePort` and `ntpPort` are read once, when the server starts; every other field can be
    /// changed while it runs with ``FakeNTSServer/update(_:)`` and applies from the next NTS-KE
    /// connection or NTP request on.
    package struct Configuration: Hashable, Sendable {
        /// The numeric loopback address both listeners bind: `127.0.0.1` (default) or `::1`.
        package var host: String
        /// The NTS-KE TCP port; 0 (default) picks a free ephemeral port.
        package var kePort: UInt16
        /// The NTP UDP port; 0 (default) picks a free ephemeral port. The NTS-KE response names it
        /// in a Port Negotiation record.
        package var ntpPort: UInt16

        /// The PEM certificate chain the NTS-KE listener serves (unless a behaviour serves another).
        package var certificateChainFile: String
        /// The private key of ``certificateChainFile``.
        package var privateKeyFile: String

        /// The server's clock minus this machine's `CLOCK_REALTIME`: the offset a correct client
        /// measures when ``replyDelay`` is zero.
        package var offset: Duration
        /// How long after stamping T3 each NTP reply is held before it is sent: a one-direction
        /// (server→client) path delay. A client then measures `offset − replyDelay / 2` and a round
        /// trip lengthened by `replyDelay`.
        package var replyDelay: Duration
        /// The stratum of NTP replies.
        package var stratum: NTPPacket.Stratum
        /// The root delay NTP replies claim.
        package var rootDelay: Duration
        /// The root dispersion NTP replies claim.
        package var rootDispersion: Duration

        /// The host named in an NTPv4 Server Negotiation record (type 6) of correct NTS-KE
        /// responses; nil (default) sends none, so the client uses the NTS-KE host.
        package var serverNegotiation: String?
        /// How many cookies an NTS-KE response carries (RFC 8915 §4.1.6 suggests 8).
        package var cookieCount: Int
        /// Bytes of padding appended to every cookie (fixed when the server starts): 0 gives
        /// chronyd's 100-byte cookies; servers with longer ones make NTP replies of several KiB.
        package var cookiePadding: Int

        /// How the server misbehaves (``Behaviour/normal`` by default).
        package var behaviour: Behaviour

        /// A correct server on `host` with ephemeral ports, serving `certificateChainFile`, whose
        /// clock is `offset` ahead of this machine's.
        package init(
            host: String = "127.0.0.1", certificateChainFile: String, privateKeyFile: String,
            offset: Duration = .zero, behaviour: Behaviour = .normal
        ) {
            self.host = host
            self.kePort = 0
            self.ntpPort = 0
            self.certificateChainFile = certificateChainFile
            self.privateKeyFile = privateKeyFile
            self.offset = offset
            self.replyDelay = .zero
            self.stratum = NTPPacket.Stratum(rawValue: 2)
            self.rootDelay = .microseconds(500)
            self.rootDispersion = .microseconds(500)
            self.serverNegotiation = nil
            self.cookieCount = 8
            self.cookiePadding = 0
            self.behaviour = behaviour
        }

        /// A correct server serving the test CA's certificate for `localhost`, 127.0.0.1 and ::1.
        package init(
            certificates: TestCertificates, host: String = "127.0.0.1", offset: Duration = .zero,
            behaviour: Behaviour = .normal
        ) {
            self.init(
                host: host, certificateChainFile: certificates.serverCertificate,
                privateKeyFile: certificates.serverKey, offset: offset, behaviour: behaviour)
        }

        /// The SNTP server configuration whose header fields NTP replies copy (the version echoes the
        /// request's, as the plain fake server does).
        var headerConfiguration: FakeNTPServer.Configuration {
            var configuration = FakeNTPServer.Configuration(host: host, port: ntpPort, offset: offset)
            configuration.stratum = stratum
            configuration.rootDelay = rootDelay
            configuration.rootDispersion = rootDispersion
            return configuration
        }
    }
}
