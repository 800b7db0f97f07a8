import HTTPTime
import Roughtime
import SNTP
import TimeValues

extension TimeSyncEngine {
    /// The engine a ``NetworkClock`` with `configuration` syncs with: its NTP and NTS servers, its
    /// HTTP(S) fallback and its Roughtime servers, stamping exchanges with `monotonic`, drawing
    /// request nonces from `nonces`, and checking certificates against `trustedTime`.
    init(
        configuration: NetworkClock.Configuration, monotonic: any MonotonicClock,
        wall: any WallClock, nonces: some NonceSource,
        trustedTime: @escaping @Sendable () -> TimeEstimate?
    ) {
        let client = SNTPClient(monotonic: monotonic, wall: wall, nonces: nonces)
        let http = HTTPTimeClient(
            configuration: configuration.httpConfiguration,
            trustRoots: configuration.trustRoots.tlsTrustRoots,
            monotonicClock: monotonic, wallClock: wall)
        self.init(
            ntp: NTPSyncEngine(policy: configuration.syncPolicy, client: client, registry: SourceRegistry()),
            httpURLs: configuration.httpURLs, http: http, deadline: configuration.deadline)
        self.trustedTime = trustedTime
        guard !configuration.roughtimeServers.isEmpty else { return }
        var options = RoughtimeClient.Options()
        // Each exchange waits as long as an NTP request does, and sends its request once more
        // halfway through (a lost datagram costs half a timeout, not a whole one).
        let timeout = configuration.query.timeout
        options.timing = RoughtimeExchange.Timing(timeout: timeout, firstRetransmission: timeout / 2)
        options.frequencyTolerancePPM = configuration.clock.frequencyTolerancePPM
        options.addressFamily = configuration.addressFamily
        roughtime = RoughtimeStage(
            servers: configuration.roughtimeServers, options: options,
            client: RoughtimeClient(monotonic: monotonic, wall: wall), pool: .shared)
    }
}
