import NetClockPlatform
import TimeValues

/// The limits a reply must meet to become a sample.
public struct ValidationPolicy: Hashable, Sendable {
    /// The largest root distance (root delay / 2 + root dispersion) accepted. Default 1 s, as chrony
    /// and RFC 5905's MAXDIST (1.5 s) suggest for a usable server.
    public var maximumRootDistance: Duration
    /// The largest absolute offset accepted, or nil for no ceiling (the default: NetworkClock exists
    /// to fix clocks that are far off). An app that knows its clock is roughly right can set one to
    /// limit what a malicious server could do.
    public var maximumOffset: Duration?

    /// Creates a policy.
    public init(maximumRootDistance: Duration = .seconds(1), maximumOffset: Duration? = nil) {
        self.maximumRootDistance = maximumRootDistance
        self.maximumOffset = maximumOffset
    }
}

extension ValidationPolicy: CustomStringConvertible {
    /// E.g. `root distance at most 1.000000s, no offset ceiling`.
    public var description: String {
        let ceiling = maximumOffset.map { "offset at most \($0.formattedSeconds)" } ?? "no offset ceiling"
        return "root distance at most \(maximumRootDistance.formattedSeconds), \(ceiling)"
    }
}

/// Checks a received datagram against the request it should answer, without reading any clock.
package enum ReplyValidator {
    /// The outcome of matching a datagram's origin against the requests of a burst.
    package enum RequestMatch: Hashable, Sendable {
        /// It answers the request in flight.
        case current
        /// It answers an earlier request that timed out.
        case stale
        /// It answers a request that was already answered.
        case alreadyAnswered
        /// It answers none of our requests.
        case none
    }

    /// Validates the reply fields that do not depend on local timestamps.
    ///
    /// - Parameters:
    ///   - bytes: the datagram.
    ///   - match: how the datagram's origin relates to our requests, from `matchOrigin`.
    /// - Returns: the decoded packet.
    /// - Throws: the first ``RejectionReason`` that applies, in this order: length, origin (spoofed,
    ///   stale, duplicate), mode, version, Kiss-o'-Death, leap alarm, stratum, zero timestamps,
    ///   receive after transmit, root distance.
    package static func validate(
        _ bytes: [UInt8], match: (NTPTimestamp) -> RequestMatch, policy: ValidationPolicy
    ) throws(RejectionReason) -> NTPPacket {
        let packet: NTPPacket
        do {
            packet = try NTPPacket(decoding: bytes)
        } catch {
            throw .tooShort(length: bytes.count)
        }
        switch match(packet.originTimestamp) {
        case .current: break
        case .stale: throw .staleReply
        case .alreadyAnswered: throw .duplicateReply
        case .none: throw .originMismatch
        }
        guard packet.mode == .server else { throw .wrongMode(packet.mode.rawValue) }
        guard (1...4).contains(packet.version) else { throw .unsupportedVersion(packet.version) }
        if let code = packet.kissCode { throw .kissOfDeath(code) }
        guard packet.leap != .alarm else { throw .unsynchronized }
        guard !packet.stratum.isUnsynchronized else { throw .stratumTooHigh(packet.stratum.rawValue) }
        guard !packet.receiveTimestamp.isZero else { throw .zeroReceiveTimestamp }
        guard !packet.transmitTimestamp.isZero else { throw .zeroTransmitTimestamp }
        guard packet.transmitTimestamp - packet.receiveTimestamp >= .zero else {
            throw .receiveAfterTransmit
        }
        guard packet.rootDistance <= policy.maximumRootDistance else {
            throw .rootDistanceTooLarge(packet.rootDistance, limit: policy.maximumRootDistance)
        }
        return packet
    }

    /// Validates the computed sample: a negative delay or an offset above the ceiling rejects it.
    package static func validate(_ sample: NTPSample, policy: ValidationPolicy) throws(RejectionReason) {
        guard sample.delay >= .zero else { throw .negativeDelay(sample.delay) }
        if let limit = policy.maximumOffset, abs(sample.offset) > limit {
            throw .offsetTooLarge(sample.offset, limit: limit)
        }
    }
}
