import NTSClient
import NetClockPlatform
import SNTP
import TimeValues

/// The NTP and NTS part of a sync, and what it keeps across syncs: the policy, the client's clocks
/// and nonces, the etiquette state of every address (a burst never starts before the spacing since
/// the previous one; a RATE kiss backs the address off; DENY and RSTR drop it for the registry's
/// lifetime), and the NTS associations.
///
/// A sync is one ``SyncRound`` (its decisions) run by ``SyncRoundRunner`` (its I/O) and decided by
/// ``SyncDecision``; ``TimeSyncEngine`` adds the HTTP(S) fallback and Roughtime to it.
package struct NTPSyncEngine: Sendable {
    /// What to query and how.
    package var policy: SyncPolicy
    /// The client whose clocks, nonces and progress observer the bursts use.
    package var client: SNTPClient
    /// Etiquette state shared across syncs.
    package var registry: SourceRegistry
    /// How long a RATE kiss silences an address.
    package var rateBackoff: Duration
    /// Where name lookups, key exchanges and the round's loop run.
    package var pool: BlockingPool = .shared
    /// NTS associations (keys, cookies) and key-exchange back-off shared across syncs.
    package var ntsSessions: NTSSessions = NTSSessions()

    /// Creates an engine.
    package init(
        policy: SyncPolicy, client: SNTPClient = SNTPClient(), registry: SourceRegistry = SourceRegistry(),
        rateBackoff: Duration = .seconds(64)
    ) {
        self.policy = policy
        self.client = client
        self.registry = registry
        self.rateBackoff = rateBackoff
    }

    /// Runs one sync of the NTP and NTS servers alone, NTS certificates checked against the wall
    /// clock.
    ///
    /// Cancelling the calling task ends the sync within one poll slice with
    /// ``SyncError/cancelled``.
    /// - Throws: ``SyncError`` when no usable, agreeing source answered by the deadline.
    package func sync() async throws(SyncError) -> SyncReport {
        var engine = TimeSyncEngine(ntp: self)
        engine.certificateTime = .known(nil, .wallClock)
        return try await engine.sync()
    }

    /// Told about the round and every request as it happens (see ``SyncProgress``); nil by default.
    /// Stored in the ``client``.
    package var progress: SyncProgressObserver? {
        get { client.progress }
        set { client.progress = newValue }
    }
}
