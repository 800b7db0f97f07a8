import NetClockPlatform
import TimeValues

/// A datagram that arrived during an exchange and was rejected.
package struct RejectedReply: Hashable, Sendable {
    /// Why it was rejected.
    package var reason: RejectionReason
    /// The decoded header, when it was at least 48 bytes.
    package var packet: NTPPacket?
    /// When it arrived, on the local wall-clock time line of the burst.
    package var receivedAt: UnixTime
}

/// What happened to one request: the reply that became a sample, or why none did, plus every
/// datagram rejected while waiting.
package struct ExchangeRecord: Hashable, Sendable {
    /// How the exchange ended.
    package enum Outcome: Hashable, Sendable {
        /// A valid reply became this sample.
        case sample(NTPSample)
        /// The server answered with a valid reply whose computed values were rejected (negative
        /// delay, offset over the ceiling), or with a Kiss-o'-Death.
        case rejected(RejectionReason)
        /// No acceptable reply arrived before the timeout.
        case timedOut
        /// ICMP port unreachable: nothing listens at the address.
        case refused
        /// The request could not be sent or received for another reason.
        case failed(TransportError)
    }

    /// The nonce sent as the request's transmit timestamp.
    package var nonce: NTPTimestamp
    /// T1 on the local wall-clock time line.
    package var sentAt: UnixTime
    /// How the exchange ended.
    package var outcome: Outcome
    /// The first datagrams rejected while waiting for the reply (at most
    /// ``maximumKeptRejections``; ``rejectedCount`` counts them all).
    package private(set) var rejected: [RejectedReply]
    /// Every datagram rejected while waiting for the reply, kept or not.
    package private(set) var rejectedCount: Int

    /// The most rejected datagrams one exchange keeps for its report: a flood of spoofed replies
    /// within one timeout is counted, not stored.
    package static let maximumKeptRejections = 8

    /// A record of an exchange that has rejected `rejected` so far (the first
    /// ``maximumKeptRejections`` of them are kept).
    package init(nonce: NTPTimestamp, sentAt: UnixTime, outcome: Outcome, rejected: [RejectedReply] = []) {
        self.nonce = nonce
        self.sentAt = sentAt
        self.outcome = outcome
        self.rejected = Array(rejected.prefix(Self.maximumKeptRejections))
        self.rejectedCount = rejected.count
    }

    /// Counts a rejected datagram, keeping it while fewer than ``maximumKeptRejections`` are kept.
    package mutating func reject(_ reply: RejectedReply) {
        rejectedCount += 1
        if rejected.count < Self.maximumKeptRejections { rejected.append(reply) }
    }

    /// The sample, when the exchange produced one.
    package var sample: NTPSample? {
        if case .sample(let sample) = outcome { return sample }
        return nil
    }
}
