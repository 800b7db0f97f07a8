import Foundation
import SNTP

extension NetworkClock {
    /// Everything a ``NetworkClock`` needs to know: where time comes from, how politely to ask,
    /// how often to refresh, and where to keep the anchor.
    package struct Configuration: Sendable {
        /// NTP servers (each resolved to all its addresses). Default: ``DefaultServers/names``.
        package var servers: [ServerName]
        /// HTTP(S) URLs tried when NTP gives no time (UDP blocked). Default none.
        package var httpURLs: [URL]
        /// The burst sent to each NTP address.
        package var query: QueryOptions
        /// Return as soon as this many NTP sources answered (nil: wait for all, up to the deadline).
        package var minimumSources: Int?
        /// At most this many addresses per host.
        package var addressesPerHost: Int
        /// How surviving NTP sources are combined.
        package var combine: CombineMethod
        /// The whole sync (NTP and HTTP fallback) ends by this long after it starts; nil derives it
        /// from the burst and HTTP settings.
        package var deadline: Duration?
        /// How HTTP measurements are made.
        package var http: HTTPTimeSource.Configuration
        /// When a started clock syncs again.
        package var refresh: RefreshPolicy
        /// How the anchored clock ages its bound and estimates drift.
        package var clock: ClockPolicy
        /// Where the anchor is persisted across restarts (nil: memory only).
        package var store: AnchorStore?

        /// Creates a configuration; every parameter has a sensible default.
        package init(
            servers: [ServerName] = DefaultServers.names, httpURLs: [URL] = [],
            query: QueryOptions = QueryOptions(),
            minimumSources: Int? = nil, addressesPerHost: Int = 4, combine: CombineMethod = .intersection,
            deadline: Duration? = nil, http: HTTPTimeSource.Configuration = HTTPTimeSource.Configuration(),
            refresh: RefreshPolicy = RefreshPolicy(), clock: ClockPolicy = ClockPolicy(),
            store: AnchorStore? = nil
        ) {
            self.servers = servers
            self.httpURLs = httpURLs
            self.query = query
            self.minimumSources = minimumSources
            self.addressesPerHost = addressesPerHost
            self.combine = combine
            self.deadline = deadline
            self.http = http
            self.refresh = refresh
            self.clock = clock
            self.store = store
        }

        /// The NTP policy these settings describe.
        var syncPolicy: SyncPolicy {
            SyncPolicy(
                servers: servers, addressesPerHost: addressesPerHost, query: query,
                minimumSources: minimumSources,
                combine: combine, frequencyTolerance: clock.frequencyTolerancePPM * 1e-6)
        }
    }
}
