import LoopbackServers
import NetClockPlatform
import SNTP
import TimeValues

/// One trial of `netclock-bench accuracy`: a burst of 8 exchanges, and the path each packet
/// actually took, read from the fake server's request log.
struct AccuracyTrial: Sendable {
    /// The legs one accepted exchange took, on this machine's clock (client and server share it).
    struct Legs: Sendable {
        /// Client T1 to server T2: the outbound path, including the loopback transit and the
        /// server's scheduling latency on top of the drawn delay.
        var outbound: Duration
        /// Server T3 to client T4: the return path.
        var `return`: Duration
        /// The delays the server drew for this request (its log's `delays`), for comparison.
        var drawnOutbound: Duration
        var drawnReturn: Duration
    }

    /// The burst as the client recorded it.
    var burst: ServerQueryResult
    /// For each exchange of the burst (same index): its legs, when it produced a sample the server
    /// logged.
    var legs: [Legs?]
    /// How long the burst took.
    var wall: Duration

    /// Matches each accepted exchange of `burst` with the server's log entry for its nonce and
    /// measures its legs: out = (T2 − offset) − T1, back = T4 − (T3 − offset). The server stamps T2
    /// and T3 with this machine's wall clock plus `offset`; the client's T1 and T4 are on the same
    /// wall clock (mapped from the boot-time clock once per burst).
    init(burst: ServerQueryResult, log: [FakeNTPServer.LoggedRequest], offset: Duration, wall: Duration) {
        var byNonce: [UInt64: FakeNTPServer.LoggedRequest] = [:]
        for entry in log {
            if let nonce = entry.packet?.transmitTimestamp.rawValue { byNonce[nonce] = entry }
        }
        self.burst = burst
        self.wall = wall
        self.legs = burst.exchanges.map { exchange in
            guard let sample = exchange.sample, let entry = byNonce[exchange.nonce.rawValue],
                let receiveTime = entry.receiveTime, let transmitTime = entry.transmitTime,
                let delays = entry.delays
            else { return nil }
            return Legs(
                outbound: (receiveTime - offset) - exchange.sentAt,
                return: sample.localReceiveTime - (transmitTime - offset),
                drawnOutbound: delays.outbound, drawnReturn: delays.return)
        }
    }

    /// The burst cut to its first `count` exchanges.
    func prefix(_ count: Int) -> ServerQueryResult {
        var result = burst
        result.exchanges = Array(burst.exchanges.prefix(count))
        return result
    }

    /// The information limit of the first `count` exchanges: the tightest bound their packets prove
    /// (half the sum of the fastest outbound and the fastest return leg, plus the server's root
    /// distance and both precisions, as each sample's bound has) and the error of its midpoint
    /// (half the legs' difference). `drawn` uses the delays the server drew instead of the legs
    /// measured end to end. Nil without a sample.
    func limit(first count: Int, drawn: Bool = false) -> (bound: Duration, error: Duration)? {
        let taken = legs.prefix(count).compactMap { $0 }
        guard let best = prefix(count).best,
            let fastestOut = taken.map({ drawn ? $0.drawnOutbound : $0.outbound }).min(),
            let fastestBack = taken.map({ drawn ? $0.drawnReturn : $0.return }).min()
        else { return nil }
        let fixed = best.reply.rootDistance + best.reply.precision.duration + best.localPrecision
        return ((fastestOut + fastestBack) / 2 + fixed, abs(fastestOut - fastestBack) / 2)
    }
}
