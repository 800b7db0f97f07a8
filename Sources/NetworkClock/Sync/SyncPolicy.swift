import NetClockPlatform
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

extension NetworkClock {
    /// How the sync engine combines the surviving sources into one result.
    public enum CombineMethod: String, Hashable, Sendable, CaseIterable {
        /// The intersection of the survivors' correctness intervals: its midpoint and half-width.
        /// Sound whenever every survivor is honest, and the tightest sound bound.
        case intersection
        /// The survivors' offsets weighted by 1/ε², with the bound of the best survivor widened by its
        /// distance from the mean.
        case weightedMean
        /// The survivor with the smallest error bound, alone.
        case best
    }
}

/// What to query and how: servers, per-address burst options, parallelism and deadlines.
package struct SyncPolicy: Hashable, Sendable {
    /// The servers to query; each name is resolved to all its addresses.
    package var servers: [ServerName]
    /// The port used for servers given without one.
    package var defaultPort: UInt16
    /// Which address families to use.
    package var family: AddressFamily
    /// At most this many addresses are used per configured host.
    package var addressesPerHost: Int
    /// The burst sent to each address.
    package var query: QueryOptions
    /// The sync returns as soon as this many sources produced a sample (nil: wait for all, up to
    /// the deadline).
    package var minimumSources: Int?
    /// The whole sync ends by this long after it starts, whatever the sources do.
    package var deadline: Duration
    /// How survivors are combined.
    package var combine: NetworkClock.CombineMethod
    /// Whether unauthenticated sources may decide the time when NTS servers are configured.
    package var ntsMode: NetworkClock.NTSMode = .require
    /// Whom NTS-KE connections trust.
    package var trustRoots: NetworkClock.TrustRoots = .system
    /// The servers (as ``ServerName/description`` spells them) known to smear leap seconds (24 h,
    /// noon to noon UTC): their intervals are mapped onto stepping time before the selection.
    package var smearingServers: Set<String> = []
    /// Whether any configured server is an NTS-KE server.
    package var usesNTS: Bool { servers.contains(where: \.usesNTS) }
    /// Roughtime servers queried beside the NTP servers (their signed time is authenticated).
    package var roughtimeServers: [RoughtimeServer] = []
    /// Which time certificates are checked against (the configuration's choice).
    package var certificateTimePolicy: NetworkClock.CertificateTimePolicy = .automatic
    /// Whether authenticated sources (NTS or Roughtime) are configured: then ``ntsMode`` decides
    /// whether unauthenticated ones may decide the time.
    package var usesAuthenticatedSources: Bool { usesNTS || !roughtimeServers.isEmpty }
    /// The frequency tolerance, in ppm, that ages samples taken at different instants to a common
    /// one: `query.frequencyTolerancePPM`, so that one setting governs every bound.
    package var frequencyTolerancePPM: Double { query.frequencyTolerancePPM }

    /// Creates a policy. The default deadline covers a full burst plus one timeout.
    package init(
        servers: [ServerName], defaultPort: UInt16 = ServerName.defaultPort,
        family: AddressFamily = .any,
        addressesPerHost: Int = 4, query: QueryOptions = QueryOptions(), minimumSources: Int? = nil,
        deadline: Duration? = nil, combine: NetworkClock.CombineMethod = .intersection
    ) {
        self.servers = servers
        self.defaultPort = defaultPort
        self.family = family
        self.addressesPerHost = max(1, addressesPerHost)
        self.query = query
        self.minimumSources = minimumSources
        self.deadline = deadline ?? Self.burstDuration(query) + query.timeout
        self.combine = combine
    }

    /// The longest one burst can take: every request timing out, spaced by the interval.
    package static func burstDuration(_ query: QueryOptions) -> Duration {
        query.timeout * query.samples + query.interval * max(0, query.samples - 1)
    }
}
