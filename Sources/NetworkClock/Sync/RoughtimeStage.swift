import NetClockPlatform
import Roughtime
import SNTP
import TimeValues

/// The Roughtime part of a sync: the chained query of the configured Roughtime servers, which
/// ``SyncRoundRunner`` runs on the blocking pool beside the NTP round. Each server's validly signed
/// interval joins the selection as a candidate of its own, authenticated and coarse; the Accuracy
/// and ThreatModel articles say what they give.
package struct RoughtimeStage: Sendable {
    /// The servers to ask, in order (the chain follows it).
    package var servers: [RoughtimeServer]
    /// How the query runs.
    package var options: RoughtimeClient.Options
    /// The client (its clocks are the sync's).
    package var client: RoughtimeClient
    /// Where the query runs.
    package var pool: BlockingPool
}
