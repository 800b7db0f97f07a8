import NetClockPlatform

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
    /// Datagrams rejected while waiting for the reply.
    package var rejected: [RejectedReply]

    /// The sample, when the exchange produced one.
    package var sample: NTPSample? {
        if case .sample(let sample) = outcome { return sample }
        return nil
    }
}
