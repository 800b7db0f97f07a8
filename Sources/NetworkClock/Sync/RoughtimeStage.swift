import NetClockPlatform
import Roughtime
import SNTP
import TimeBase

/// The Roughtime part of a sync: the chained query of the configured Roughtime servers, run on
/// the blocking pool beside the NTP round. Its agreed signed time joins the selection as one more
/// candidate (``SignedTime``), authenticated and coarse; the rules for it are screens like any
/// other (``SignedTimeScreen``, ``AuthenticationScreen``), and the Accuracy and ThreatModel
/// articles say what they give.
package struct RoughtimeStage: Sendable {
    /// The servers to ask, in order (the chain follows it).
    package var servers: [RoughtimeServer]
    /// How the query runs.
    package var options: RoughtimeClient.Options
    /// The client (its clocks are the sync's).
    package var client: RoughtimeClient
    /// Where the query runs.
    package var pool: BlockingPool

    /// Starts the query on the pool; await ``BlockingBatch/wait(timeout:onTaskCancellation:)`` for it.
    func start() -> BlockingBatch<RoughtimeQueryResult> {
        let batch = BlockingBatch<RoughtimeQueryResult>(on: pool)
        let (client, servers, options) = (self.client, self.servers, self.options)
        batch.submit { stop in client.query(servers, options: options, isCancelled: { stop.isCancelled }) }
        return batch
    }

}

extension SyncError {
    /// The error with the Roughtime part of the sync added to its report: the chain's summary and
    /// each server's part.
    func adding(_ roughtime: SignedTime) -> SyncError {
        let summary = roughtime.summary
        let reason = summary.error.map { "\(self.reason); Roughtime: \($0)" } ?? self.reason
        return SyncError(
            code: code, reason: reason, servers: servers + roughtime.servers,
            majorityFailure: majorityFailure,
            roughtime: summary)
    }
}
