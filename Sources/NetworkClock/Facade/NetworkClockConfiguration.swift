#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import ClockCore
import HTTPTime
import NetClockPlatform
import Roughtime
import SNTP
import TimeValues

extension NetworkClock {
    /// Everything a ``NetworkClock`` needs to know: where time comes from, how politely to ask,
    /// how often to refresh, and where to keep the anchor.
    public struct Configuration: Sendable {
        /// NTP servers (each resolved to all its addresses) and NTS-KE servers
        /// (`ServerName.nts(_:port:)`), alongside each other. Default: ``defaultServers``.
        public var servers: [ServerName]
        /// Which of ``servers`` smear leap seconds instead of stepping, as the big public smearing
        /// servers do (Google's `time.google.com`, and those copying its smear): linearly over 24 h
        /// from noon to noon UTC around the leap. Before the selection their intervals are mapped onto the
        /// stepping (POSIX) time anchors hold, with the leap known then (a valid
        /// ``leapSecondTable``, the stepping servers' unanimous announcement, the held anchor's);
        /// when it is unknown, widened by what the smear may have moved them (up to 0.5 s). A
        /// smearing server not listed here disagrees with stepping ones by up to 0.5 s near a leap
        /// and is named as a falseticker when outvoted. Matched as written (`host` or `host:port`).
        /// Default none.
        public var smearingServers: Set<ServerName> = []
        /// Whether unauthenticated sources may decide the time when NTS servers are configured.
        /// Default ``NetworkClock/NTSMode/require``.
        public var ntsMode: NetworkClock.NTSMode
        /// Whether a sync may use unauthenticated time when NTS servers are configured but none
        /// answered (``SyncReport/isDowngraded``). Default `false`: such a sync throws
        /// ``SyncError/Code/unauthenticatedOnly`` and the clock is not touched. Even when `true`,
        /// unauthenticated time never moves an anchor that came from authenticated time.
        public var allowsDowngrade: Bool
        /// Which time certificates (NTS-KE, `https://`) are checked against. Default
        /// ``NetworkClock/CertificateTimePolicy/automatic``: the trusted clock, else Roughtime's
        /// time, else a checked bootstrap, so that a wrong local clock does not stop secure time.
        public var certificateTime: NetworkClock.CertificateTimePolicy
        /// Whom NTS-KE and `https://` connections trust. Default the system's trust store.
        public var trustRoots: NetworkClock.TrustRoots
        /// HTTP(S) URLs tried when NTP gives no time (UDP blocked). Default none.
        public var httpURLs: [URL]
        /// Roughtime servers (RFC 10049), queried in a chain beside the NTP servers: signed time
        /// that needs no certificate and so no correct local clock, coarse (a second or more),
        /// checked across servers; a liar's validly signed time is named in the report with
        /// proof (``SyncReport/RoughtimeSummary/malfeasanceReport``). They count as authenticated
        /// sources for ``ntsMode``. Default none.
        public var roughtimeServers: [RoughtimeServer]
        /// The burst sent to each NTP address. Its frequency tolerance is the clock's
        /// (`ClockPolicy.frequencyTolerancePPM`): one setting, which reads the same through both,
        /// and setting it through either sets it for both.
        public var query: QueryOptions {
            get {
                var query = burst
                query.frequencyTolerancePPM = clock.frequencyTolerancePPM
                return query
            }
            set {
                burst = newValue
                clock.frequencyTolerancePPM = newValue.frequencyTolerancePPM
            }
        }
        /// ``query`` but for its frequency tolerance, which is the clock policy's.
        private var burst: QueryOptions
        /// Return as soon as this many NTP sources answered (nil: wait for all, up to the deadline).
        public var minimumSources: Int?
        /// The NTP port of servers given without one. Default 123.
        public var defaultPort: UInt16
        /// At most this many addresses per host.
        public var addressesPerHost: Int
        /// Which address families names are resolved to (for NTP, NTS-KE and the NTP servers NTS
        /// names). Default `.any`.
        public var addressFamily: NetworkClock.AddressFamily
        /// How surviving NTP sources are combined.
        public var combine: NetworkClock.CombineMethod
        /// The whole sync (NTP and HTTP fallback) ends by this long after it starts; nil derives it
        /// from the burst and HTTP settings.
        public var deadline: Duration?
        /// How HTTP measurements are made.
        public var http: NetworkClock.HTTPOptions
        /// When a started clock syncs again.
        public var refresh: NetworkClock.RefreshPolicy
        /// How the anchored clock ages its bound and estimates drift.
        public var clock: NetworkClock.ClockPolicy
        /// Where the anchor is persisted across restarts (nil: memory only).
        public var store: AnchorStore?
        /// The leap-second table read at each sync (IERS/NIST `leap-seconds.list`, as tzdata
        /// installs it), nil for none. A valid table decides the leap seconds until it expires; a
        /// missing, expired or damaged one is ignored with a note
        /// (``SyncReport/leapTableNote``). Default ``defaultLeapSecondTable``.
        public var leapSecondTable: String?

        /// Where tzdata installs the leap-second table.
        public static let defaultLeapSecondTable = "/usr/share/zoneinfo/leap-seconds.list"

        /// Creates a configuration; every parameter has a sensible default.
        public init(
            servers: [ServerName] = Configuration.defaultServers, httpURLs: [URL] = [],
            query: QueryOptions = QueryOptions(),
            minimumSources: Int? = nil, addressesPerHost: Int = 4,
            combine: NetworkClock.CombineMethod = .intersection,
            deadline: Duration? = nil, http: HTTPOptions = HTTPOptions(),
            refresh: NetworkClock.RefreshPolicy = NetworkClock.RefreshPolicy(),
            clock: NetworkClock.ClockPolicy = NetworkClock.ClockPolicy(),
            store: AnchorStore? = nil, ntsMode: NTSMode = .require, trustRoots: TrustRoots = .system,
            allowsDowngrade: Bool = false, addressFamily: AddressFamily = .any,
            defaultPort: UInt16 = ServerName.defaultPort, roughtimeServers: [RoughtimeServer] = [],
            certificateTime: CertificateTimePolicy = .automatic,
            leapSecondTable: String? = Configuration.defaultLeapSecondTable
        ) {
            self.leapSecondTable = leapSecondTable
            self.certificateTime = certificateTime
            self.roughtimeServers = roughtimeServers
            self.defaultPort = defaultPort
            self.allowsDowngrade = allowsDowngrade
            self.addressFamily = addressFamily
            self.servers = servers
            self.ntsMode = ntsMode
            self.trustRoots = trustRoots
            self.httpURLs = httpURLs
            self.burst = query
            self.minimumSources = minimumSources
            self.addressesPerHost = addressesPerHost
            self.combine = combine
            self.deadline = deadline
            self.http = http
            self.refresh = refresh
            self.clock = clock
            // One tolerance: a burst's that differs from the default, unless the clock's does too.
            if query.frequencyTolerancePPM != QueryOptions.defaultFrequencyTolerancePPM
                && clock.frequencyTolerancePPM == FrequencyTolerance.defaultPPM
            {
                self.clock.frequencyTolerancePPM = query.frequencyTolerancePPM
            }
            self.store = store
        }

        /// The servers used when none are configured: `pool.ntp.org`.
        ///
        /// It resolves to several volunteer servers near the client, none of which smear leap
        /// seconds, so their answers can be combined (smearing servers such as Google's disagree
        /// with them by up to 0.5 s around a leap second: list those in ``smearingServers``). One
        /// lookup gives four addresses, enough for a majority vote. Products shipping to many
        /// devices should register their own vendor zone with the pool project and use it instead.
        public static let defaultServers: [ServerName] = [ServerName(host: "pool.ntp.org")]

        /// The NTP policy these settings describe.
        package var syncPolicy: SyncPolicy {
            var policy = SyncPolicy(
                servers: servers, defaultPort: defaultPort, family: addressFamily,
                addressesPerHost: addressesPerHost,
                query: query, minimumSources: minimumSources, combine: combine)
            policy.ntsMode = ntsMode
            policy.trustRoots = trustRoots
            policy.roughtimeServers = roughtimeServers
            policy.certificateTimePolicy = certificateTime
            policy.smearingServers = Set(smearingServers.map(\.description))
            return policy
        }

        /// The HTTP time client's configuration these settings describe.
        var httpConfiguration: HTTPTimeClient.Configuration {
            http.clientConfiguration(frequencyTolerancePPM: clock.frequencyTolerancePPM)
        }
    }
}

extension NetworkClock {
    /// Which address families server names resolve to: `.any` (IPv4 and IPv6, in the resolver's
    /// order), `.ipv4` or `.ipv6`; each case's description (and raw value) is its name.
    ///
    /// The resolver's own type (`NetClockPlatform.AddressFamily`), which every client below the
    /// facade takes as well, so there is one type for the choice from the resolver up.
    public typealias AddressFamily = NetClockPlatform.AddressFamily
}
