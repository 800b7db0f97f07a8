extension FakeNTPServer {
    /// How the server answers one request: correctly, or with a specific fault that a strict client
    /// must reject for one specific reason.
    ///
    /// Unless a case says otherwise, the reply is the correct one (origin = the request's transmit
    /// timestamp, T2 and T3 stamped at the right instants) with exactly one thing wrong.
    package indirect enum Behaviour: Hashable, Sendable {
        /// A correct reply.
        case normal
        /// Only the first `length` bytes (clamped to 0–47) of the correct reply: too short to decode.
        case truncated(length: Int)
        /// The mode field set to the given value (e.g. 3, client, or 5, broadcast) instead of 4.
        case wrongMode(UInt8)
        /// The version field set to the given value (e.g. 0 or 5–7).
        case wrongVersion(UInt8)
        /// An origin timestamp that is neither the request's transmit timestamp nor zero: a spoofed
        /// or misdirected reply.
        case wrongOrigin
        /// A zero origin timestamp.
        case zeroOrigin
        /// An origin timestamp equal to the transmit timestamp of the request received before this
        /// one (a random value when there is none): a stale reply to an earlier request.
        case staleOrigin
        /// Leap indicator 3: the server's clock is not synchronised.
        case unsynchronized
        /// A Kiss-o'-Death packet as ntpd sends it: leap indicator 3, stratum 0, the code (e.g.
        /// `RATE`, `DENY`, `RSTR`) as reference ID, and the request's transmit timestamp in all four
        /// timestamp fields, so the origin still matches and a client can tell it answers its request.
        /// A client must check for stratum 0 before the leap indicator to report the kiss code.
        case kissOfDeath(code: String)
        /// The stratum field set to the given value, e.g. 16 (unsynchronised) or more.
        case stratum(UInt8)
        /// A zero transmit timestamp (T3).
        case zeroTransmit
        /// A zero receive timestamp (T2).
        case zeroReceive
        /// A receive timestamp one second after the transmit timestamp (T2 > T3).
        case receiveAfterTransmit
        /// The given root delay and root dispersion (huge ones make the root distance too large).
        case rootDistance(delay: Duration, dispersion: Duration)
        /// A transmit timestamp 10 s after the receive timestamp: the server claims to have held the
        /// request far longer than the whole round trip took, so the computed delay is negative.
        case negativeDelay
        /// `length` random bytes (from the seeded generator) instead of a reply.
        case garbage(length: Int)
        /// No reply at all (the request is still logged).
        case noReply
        /// The correct reply, sent this much later than it otherwise would be (use more than the
        /// client's timeout). T3 is not restamped, as with a packet stuck in a queue.
        case lateReply(Duration)
        /// The correct reply, sent twice.
        case duplicateReply
        /// The correct reply, sent from a second UDP socket bound to another port on the same address.
        case fromOtherPort
        /// Answers only one request in `every` (the `every`-th, 2×`every`-th, … counted over all
        /// requests the server has received, from 1) and drops the others. `answerOnly(every: 1)`
        /// answers all.
        case answerOnly(every: Int)
        /// The correct reply from a clock `by` further ahead than the configured offset (T2 and T3
        /// both moved, consistently): a server that stepped its clock. Set it as ``Configuration/behaviour``
        /// after some `.normal` entries in ``Configuration/nextBehaviours`` to step within a burst.
        case steppedClock(by: Duration)
        /// First the reply the given behaviour produces, then, at the same instant (after it, if the
        /// behaviour delays its reply), the correct reply: a spoofer or a stale packet racing the real
        /// answer. A client that rejects the first must keep waiting and accept the second.
        case badReplyFirst(Behaviour)

        /// A stale reply (echoing the previous request's transmit timestamp) followed by the correct
        /// reply.
        package static var staleReplyFirst: Behaviour { .badReplyFirst(.staleOrigin) }

        /// Whether this behaviour sends nothing for the `requestNumber`-th request (counted from 1).
        func dropsRequest(number requestNumber: Int) -> Bool {
            switch self {
            case .noReply: return true
            case .answerOnly(let every): return every > 1 && requestNumber % every != 0
            default: return false
            }
        }
    }
}

extension FakeNTPServer.Behaviour: CustomStringConvertible {
    /// The behaviour in the form `fake-ntp-server --behaviour` accepts, e.g. `truncated:20`.
    package var description: String {
        switch self {
        case .normal: return "normal"
        case .truncated(let length): return "truncated:\(length)"
        case .wrongMode(let mode): return "wrong-mode:\(mode)"
        case .wrongVersion(let version): return "wrong-version:\(version)"
        case .wrongOrigin: return "wrong-origin"
        case .zeroOrigin: return "zero-origin"
        case .staleOrigin: return "stale-origin"
        case .unsynchronized: return "unsynchronized"
        case .kissOfDeath(let code): return "kiss:\(code)"
        case .stratum(let stratum): return "stratum:\(stratum)"
        case .zeroTransmit: return "zero-transmit"
        case .zeroReceive: return "zero-receive"
        case .receiveAfterTransmit: return "receive-after-transmit"
        case .rootDistance(let delay, let dispersion):
            return "root-distance:\(FakeNTPServer.format(delay)):\(FakeNTPServer.format(dispersion))"
        case .negativeDelay: return "negative-delay"
        case .garbage(let length): return "garbage:\(length)"
        case .noReply: return "no-reply"
        case .lateReply(let delay): return "late:\(FakeNTPServer.format(delay))"
        case .duplicateReply: return "duplicate"
        case .fromOtherPort: return "other-port"
        case .answerOnly(let every): return "answer-every:\(every)"
        case .steppedClock(let step): return "stepped:\(FakeNTPServer.format(step))"
        case .badReplyFirst(.staleOrigin): return "stale-first"
        case .badReplyFirst(let inner): return "bad-first:\(inner)"
        }
    }
}
