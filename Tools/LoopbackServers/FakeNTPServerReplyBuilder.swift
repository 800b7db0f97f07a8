import SNTP
import TimeValues

extension FakeNTPServer {
    /// One datagram the server sends for a request.
    struct Transmission: Hashable, Sendable {
        /// The bytes to send.
        var bytes: [UInt8]
        /// How much later than the ordinary send instant (T3 + return delay) to send it.
        var extraDelay: Duration
        /// Whether to send it from the second socket, bound to another port.
        var fromOtherPort: Bool

        init(_ bytes: [UInt8], extraDelay: Duration = .zero, fromOtherPort: Bool = false) {
            self.bytes = bytes
            self.extraDelay = extraDelay
            self.fromOtherPort = fromOtherPort
        }
    }

    /// Builds replies. Pure functions of the request, the configuration, the stamped instants and a
    /// generator: no clock, no socket, so every behaviour is testable without threads.
    package enum ReplyBuilder {
        /// The correct reply to `request`, received at `receiveTime` (T2) and sent at `transmitTime`
        /// (T3), both on the server's clock.
        package static func correctReply(
            to request: NTPPacket, receiveTime: UnixTime, transmitTime: UnixTime,
            configuration: Configuration
        ) -> NTPPacket {
            let version = configuration.version ?? ((1...4).contains(request.version) ? request.version : 4)
            return NTPPacket(
                leap: configuration.leap, version: version, mode: .server, stratum: configuration.stratum,
                poll: configuration.poll ?? request.poll, precision: configuration.precision,
                rootDelay: NTPPacket.ShortFormat(roundingUp: configuration.rootDelay),
                rootDispersion: NTPPacket.ShortFormat(roundingUp: configuration.rootDispersion),
                referenceID: configuration.effectiveReferenceID,
                referenceTimestamp: NTPTimestamp(transmitTime - configuration.referenceAge),
                originTimestamp: request.transmitTimestamp,
                receiveTimestamp: NTPTimestamp(receiveTime),
                transmitTimestamp: NTPTimestamp(transmitTime))
        }

        /// The datagrams `behaviour` sends in answer to `request`, given the correct reply.
        ///
        /// - Parameter previousNonce: the transmit timestamp of the request received before this one.
        static func transmissions(
            for behaviour: Behaviour, request: NTPPacket, correct: NTPPacket,
            previousNonce: NTPTimestamp?, generator: inout some RandomNumberGenerator
        ) -> [Transmission] {
            let nonce = request.transmitTimestamp
            var reply = correct
            switch behaviour {
            case .normal, .answerOnly, .steppedClock:
                break
            case .noReply:
                return []
            case .truncated(let length):
                return [Transmission(Array(correct.encoded().prefix(min(max(length, 0), 47))))]
            case .wrongMode(let mode):
                reply.mode = NTPPacket.Mode(rawValue: mode)
            case .wrongVersion(let version):
                reply.version = version & 0b111
            case .wrongOrigin:
                reply.originTimestamp = randomTimestamp(differentFrom: nonce, using: &generator)
            case .zeroOrigin:
                reply.originTimestamp = .zero
            case .staleOrigin:
                if let previousNonce, previousNonce != nonce {
                    reply.originTimestamp = previousNonce
                } else {
                    reply.originTimestamp = randomTimestamp(differentFrom: nonce, using: &generator)
                }
            case .unsynchronized:
                reply.leap = .alarm
            case .kissOfDeath(let code):
                reply = NTPPacket(
                    leap: .alarm, version: correct.version, mode: .server, stratum: .kissOfDeath,
                    poll: correct.poll, precision: correct.precision,
                    referenceID: NTPPacket.ReferenceID(ascii: code), referenceTimestamp: nonce,
                    originTimestamp: nonce, receiveTimestamp: nonce, transmitTimestamp: nonce)
            case .stratum(let stratum):
                reply.stratum = NTPPacket.Stratum(rawValue: stratum)
            case .zeroTransmit:
                reply.transmitTimestamp = .zero
            case .zeroReceive:
                reply.receiveTimestamp = .zero
            case .receiveAfterTransmit:
                reply.receiveTimestamp = correct.transmitTimestamp + .seconds(1)
            case .rootDistance(let delay, let dispersion):
                reply.rootDelay = NTPPacket.ShortFormat(roundingUp: delay)
                reply.rootDispersion = NTPPacket.ShortFormat(roundingUp: dispersion)
            case .negativeDelay:
                reply.transmitTimestamp = correct.receiveTimestamp + .seconds(10)
            case .garbage(let length):
                let count = min(max(length, 0), 65_507)
                return [Transmission((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })]
            case .lateReply(let delay):
                return [Transmission(correct.encoded(), extraDelay: max(delay, .zero))]
            case .duplicateReply:
                return [Transmission(correct.encoded()), Transmission(correct.encoded())]
            case .fromOtherPort:
                return [Transmission(correct.encoded(), fromOtherPort: true)]
            case .badReplyFirst(let inner):
                let first = transmissions(
                    for: inner, request: request, correct: correct, previousNonce: previousNonce,
                    generator: &generator)
                let after = first.map(\.extraDelay).max() ?? .zero
                return first + [Transmission(correct.encoded(), extraDelay: after)]
            }
            return [Transmission(reply.encoded())]
        }

        /// A random timestamp that is neither zero nor `excluded`.
        private static func randomTimestamp(
            differentFrom excluded: NTPTimestamp, using generator: inout some RandomNumberGenerator
        ) -> NTPTimestamp {
            var value = generator.next()
            while value == 0 || value == excluded.rawValue { value = generator.next() }
            return NTPTimestamp(rawValue: value)
        }
    }
}
