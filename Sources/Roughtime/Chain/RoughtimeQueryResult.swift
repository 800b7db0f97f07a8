import NetClockPlatform
import TimeValues

/// What a chained query of several Roughtime servers found: the agreed time or why there is none,
/// each server's part, the liars, and the proof of their lies when the chain holds one.
package struct RoughtimeQueryResult: Sendable, CustomStringConvertible {
    /// One report per server, in the order given.
    package var servers: [RoughtimeServerReport]
    /// The time a majority agrees on, or why there is none (`no_majority`, `not_enough_replies`,
    /// `no_servers`, `cancelled`).
    package var agreement: Result<RoughtimeAgreement, RoughtimeError>
    /// Every valid reply, in the order received, each nonce chained from the one before.
    package var chain: RoughtimeChain
    /// The chain as a malfeasance report, when two of its replies contradict their order.
    package var malfeasanceReport: RoughtimeMalfeasanceReport?

    /// A result.
    package init(
        servers: [RoughtimeServerReport], agreement: Result<RoughtimeAgreement, RoughtimeError>,
        chain: RoughtimeChain
    ) {
        self.servers = servers
        self.agreement = agreement
        self.chain = chain
        self.malfeasanceReport = chain.malfeasanceReport
    }

    /// The names of the servers whose validly signed time contradicts the majority.
    package var liars: [String] {
        servers.filter { $0.status == .falseticker }.map(\.name)
    }

    /// The agreed time.
    /// - Throws: the reason there is none.
    package func agreedTime() throws(RoughtimeError) -> RoughtimeAgreement {
        try agreement.get()
    }

    /// A summary line, then one line per server, then the liars and whether a report proves it.
    package var description: String {
        var lines: [String] = []
        switch agreement {
        case .success(let agreement): lines.append("agreed: \(agreement)")
        case .failure(let error): lines.append("no agreed time: \(error)")
        }
        for server in servers { lines.append("  " + server.description) }
        if !liars.isEmpty { lines.append("liars: " + liars.joined(separator: ", ")) }
        if let report = malfeasanceReport {
            let pairs = chain.violations.map { "\($0.earlier + 1)→\($0.later + 1)" }.joined(separator: ", ")
            lines.append("\(report) (contradicting replies: \(pairs))")
        }
        return lines.joined(separator: "\n")
    }
}
