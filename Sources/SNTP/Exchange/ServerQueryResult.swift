import NetClockPlatform
import TimeValues

/// Why a server gave no usable sample.
package enum QueryFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// Every request timed out.
    case timedOut
    /// ICMP port unreachable: nothing listens at the address.
    case refused
    /// The server answered with a Kiss-o'-Death.
    case kissOfDeath(NTPPacket.KissCode)
    /// Replies arrived but all were rejected; the reasons, most frequent first.
    case allRejected([RejectionReason])
    /// The address could not be resolved or a socket call failed.
    case transport(TransportError)

    /// A stable machine-readable status: `timeout`, `refused`, `kod`, `rejected` or `error`.
    package var status: String {
        switch self {
        case .timedOut: return "timeout"
        case .refused: return "refused"
        case .kissOfDeath: return "kod"
        case .allRejected: return "rejected"
        case .transport: return "error"
        }
    }

    /// A readable explanation.
    package var description: String {
        switch self {
        case .timedOut: return "no reply (timed out)"
        case .refused: return "connection refused (ICMP port unreachable)"
        case .kissOfDeath(let code): return "Kiss-o'-Death \(code)"
        case .allRejected(let reasons):
            return "every reply rejected: " + reasons.map(\.description).joined(separator: "; ")
        case .transport(let error): return error.description
        }
    }
}

/// Everything learned from one burst to one server address.
package struct ServerQueryResult: Hashable, Sendable {
    /// The address queried.
    package var address: SocketAddress
    /// One record per request sent, in order.
    package var exchanges: [ExchangeRecord]
    /// The local time-line mapping used for every T1 and T4 of the burst.
    package var mapping: TimeMapping

    /// The record of a burst to `address` whose T1 and T4 were mapped by `mapping`.
    package init(address: SocketAddress, exchanges: [ExchangeRecord], mapping: TimeMapping) {
        self.address = address
        self.exchanges = exchanges
        self.mapping = mapping
    }

    /// Every accepted sample, in order.
    package var samples: [NTPSample] { exchanges.compactMap(\.sample) }

    /// The minimum-delay sample (the NTP clock-filter choice): the one least disturbed by queuing.
    package var best: NTPSample? {
        samples.min { $0.delay < $1.delay }
    }

    /// The RMS difference between the other samples' offsets and the best one's (RFC 5905 peer
    /// jitter); zero with one sample, nil with none.
    package var jitter: Duration? {
        guard let best else { return nil }
        let others = samples.filter { $0 != best }
        guard !others.isEmpty else { return .zero }
        let sum = others.reduce(0.0) { total, sample in
            let difference = (sample.offset - best.offset).secondsDouble
            return total + difference * difference
        }
        return Duration(secondsDouble: (sum / Double(others.count)).squareRoot()) ?? .zero
    }

    /// The Kiss-o'-Death code the server sent, if any.
    package var kissCode: NTPPacket.KissCode? {
        for exchange in exchanges {
            if case .rejected(.kissOfDeath(let code)) = exchange.outcome { return code }
        }
        return nil
    }

    /// Why no sample was obtained, or nil when there is one.
    package var failure: QueryFailure? {
        guard samples.isEmpty else { return nil }
        if let code = kissCode { return .kissOfDeath(code) }
        var reasons: [RejectionReason] = []
        for exchange in exchanges {
            if case .rejected(let reason) = exchange.outcome { reasons.append(reason) }
            reasons += exchange.rejected.map(\.reason)
        }
        if exchanges.contains(where: { $0.outcome == .refused }) && reasons.isEmpty { return .refused }
        for exchange in exchanges {
            if case .failed(let error) = exchange.outcome, reasons.isEmpty { return .transport(error) }
        }
        if !reasons.isEmpty { return .allRejected(Self.byFrequency(reasons)) }
        return .timedOut
    }

    /// Distinct reasons, most frequent first.
    private static func byFrequency(_ reasons: [RejectionReason]) -> [RejectionReason] {
        var counts: [RejectionReason: Int] = [:]
        var order: [RejectionReason] = []
        for reason in reasons {
            if counts[reason] == nil { order.append(reason) }
            counts[reason, default: 0] += 1
        }
        return order.enumerated().sorted {
            (counts[$0.element] ?? 0, -$0.offset) > (counts[$1.element] ?? 0, -$1.offset)
        }.map(\.element)
    }
}
