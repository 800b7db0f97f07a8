import NetworkClock

/// The query that `query`, `sync` and `watch` share: NTP through the sync engine.
struct TimeQuery {
    var options: QueryCommandOptions
    var engine: NTPSyncEngine

    init(options: QueryCommandOptions, registry: SourceRegistry = SourceRegistry()) {
        self.options = options
        self.engine = NTPSyncEngine(policy: options.syncPolicy, registry: registry)
    }

    func run() async -> Result<SyncReport, SyncError> {
        do {
            return .success(try await engine.sync())
        } catch {
            return .failure(error)
        }
    }
}
