import NetClockPlatform
import NetClockTLS
import SNTP
import TimeBase

extension SyncReport {
    /// What became of one source (one address of one configured server) in a sync.
    public struct SourceStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The status name, as the CLI's JSON prints it.
        public package(set) var rawValue: String

        /// Creates a status from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The source whose sample became the result (or, when several are combined, the best of them).
        public static let selected = SourceStatus(rawValue: "selected")
        /// A source that agreed with the majority and was combined into the result.
        public static let survivor = SourceStatus(rawValue: "survivor")
        /// A source whose interval lies outside the majority's agreement: excluded.
        public static let falseticker = SourceStatus(rawValue: "falseticker")
        /// The source sent a Kiss-o'-Death.
        public static let kissOfDeath = SourceStatus(rawValue: "kod")
        /// No reply before the deadline.
        public static let timeout = SourceStatus(rawValue: "timeout")
        /// ICMP port unreachable.
        public static let refused = SourceStatus(rawValue: "refused")
        /// Replies arrived but every one was rejected.
        public static let rejected = SourceStatus(rawValue: "rejected")
        /// The name did not resolve or a socket call failed.
        public static let error = SourceStatus(rawValue: "error")
        /// The source's own samples contradict each other (their intervals do not intersect): the
        /// server stepped its clock or lied within the burst, or the local clock jumped. It does not
        /// vote; the reason names the two samples farthest apart.
        public static let inconsistent = SourceStatus(rawValue: "inconsistent")
        /// Not queried: dropped earlier after a DENY or RSTR Kiss-o'-Death, or backing off.
        public static let skipped = SourceStatus(rawValue: "skipped")
        /// Answered, but not used: NTS servers are configured and the NTS mode does not let an
        /// unauthenticated source decide the time (``NetworkClock/NTSMode``).
        public static let unauthenticated = SourceStatus(rawValue: "unauthenticated")

        /// The status name.
        public var description: String { rawValue }
    }
}

extension SyncReport {
    /// One source's part in a sync: where it is, what it said, and what was decided about it.
    public struct NTPSource: Hashable, Sendable {
        /// The server as configured (`host` or `host:port`).
        public package(set) var server: ServerName
        /// The address queried, when the name resolved.
        package var address: SocketAddress?
        /// What was decided.
        public package(set) var status: SyncReport.SourceStatus
        /// Why, when the source was not used.
        public package(set) var reason: String?
        /// The burst's full record, when the source was queried.
        package var query: ServerQueryResult?
        /// For an NTS server: its key exchange and association.
        package var nts: NTSSourceDetails?
        /// Whether the server was configured as smearing leap seconds
        /// (``NetworkClock/Configuration/smearingServers``): its interval was mapped onto
        /// stepping (POSIX) time before the selection.
        public package(set) var isSmearing = false
        /// For a smearing server with a sample, how far the mapping moved the midpoint of its
        /// interval: stepping minus smeared time, up to ±0.5 s near a leap, zero outside the 24 h
        /// around a month's end.
        public package(set) var smearCorrection: Duration?
        /// For a smearing server with a sample, how much the mapping widened its interval's
        /// half-width: the smear's slope (1/86,400 of the width), the step inside the interval, or
        /// an unknown leap's possible half second.
        public package(set) var smearWidening: Duration?

        /// Creates a report.
        package init(
            server: ServerName, address: SocketAddress?, status: SyncReport.SourceStatus,
            reason: String? = nil,
            query: ServerQueryResult? = nil
        ) {
            self.server = server
            self.address = address
            self.status = status
            self.reason = reason
            self.query = query
        }

        /// The address queried as text (`192.0.2.1:123`, `[2001:db8::1]:123`), when the name
        /// resolved.
        public var resolvedAddress: String? { address?.description }

        /// The server as configured and, when it reads differently, the address queried:
        /// `pool.ntp.org (192.0.2.1:123)`, but `127.0.0.1:123` once, not twice.
        package var serverAndAddress: String {
            let name = server.description
            guard let address = resolvedAddress, address != name else { return name }
            return "\(name) (\(address))"
        }

        /// The minimum-delay sample, when there is one.
        public var best: NTPSample? { query?.best }

        /// Whether the source's samples are authenticated: it is an NTS server and every sample came
        /// from a reply whose authenticator verified (RFC 8915). False for plain NTP.
        public var isAuthenticated: Bool { nts != nil && best != nil }

        /// For an NTS server, the NTS-KE address connected to (`127.0.0.1:4460`), when the key
        /// exchange (this sync's or an earlier one) succeeded.
        public var keyExchangeAddress: String? { nts?.keyExchangeAddress?.description }

        /// What the source votes with: the intersection of its samples' intervals (or its one
        /// sample's), when it has samples and they agree.
        package var estimate: BurstEstimate? {
            guard case .success(let estimate) = query?.estimate else { return nil }
            return estimate
        }

        /// Requests sent to this source.
        public var packetsSent: Int {
            query?.exchanges.filter { $0.nonce != .zero }.count ?? 0
        }
    }
}

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
