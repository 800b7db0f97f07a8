import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

extension SyncReport.Server {
    /// What only an NTP or NTS server reports: its burst and, for NTS, its association.
    public struct NTP: Hashable, Sendable {
        /// The server as configured.
        package var server: ServerName
        /// The address queried, when the name resolved (for NTS: the NTP address its key exchange
        /// named).
        package var address: SocketAddress?
        /// The burst's full record, when the server was queried. Setting it works out the burst's
        /// estimate once (``estimate``, ``inconsistency``).
        package var query: ServerQueryResult? {
            didSet { estimateResult = query?.estimate }
        }
        /// The intersection of the burst's samples, or why they contradict each other, worked out
        /// once from ``query``.
        private var estimateResult: Result<BurstEstimate, BurstInconsistency>?
        /// For an NTS server: its key exchange and association.
        package var nts: NTSSourceDetails?

        /// Creates details.
        package init(
            server: ServerName, address: SocketAddress?, query: ServerQueryResult? = nil,
            nts: NTSSourceDetails? = nil
        ) {
            self.server = server
            self.address = address
            self.query = query
            self.estimateResult = query?.estimate
            self.nts = nts
        }

        /// The minimum-delay sample, when there is one.
        public var best: NTPSample? { query?.best }

        /// Requests sent to this server.
        public var packetsSent: Int {
            query?.exchanges.filter { $0.nonce != .zero }.count ?? 0
        }

        /// For an NTS server, the NTS-KE address connected to (`127.0.0.1:4460`), when the key
        /// exchange (this sync's or an earlier one) succeeded.
        public var keyExchangeAddress: String? { nts?.keyExchangeAddress?.description }

        /// What the server votes with: the intersection of its samples' intervals (or its one
        /// sample's), when it has samples and they agree.
        package var estimate: BurstEstimate? {
            guard case .success(let estimate) = estimateResult else { return nil }
            return estimate
        }

        /// Why the burst's samples contradict each other, when they do.
        package var inconsistency: BurstInconsistency? {
            guard case .failure(let inconsistency) = estimateResult else { return nil }
            return inconsistency
        }
    }
}

extension SyncReport.Server {
    /// A report of an NTP or NTS server (NTS when `server` says so).
    package init(
        server: ServerName, address: SocketAddress?, status: SyncReport.SourceStatus, reason: String? = nil,
        query: ServerQueryResult? = nil
    ) {
        let ntp = NTP(server: server, address: address, query: query)
        self.init(
            name: server.description, status: status, reason: reason,
            details: server.usesNTS ? .nts(ntp) : .ntp(ntp))
    }

    /// The server as configured and, when it reads differently, the address asked:
    /// `pool.ntp.org (192.0.2.1:123)`, but `127.0.0.1:123` once, not twice.
    package var nameAndAddress: String {
        guard let address, address != name else { return name }
        return "\(name) (\(address))"
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
