import NetClockPlatform

/// Why a received datagram was not accepted as the reply to our request. A rejected datagram never
/// becomes a sample.
package enum RejectionReason: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than 48 bytes.
    case tooShort(length: Int)
    /// The origin timestamp is not the nonce of any request we sent: spoofed, or garbage.
    case originMismatch
    /// The origin timestamp is the nonce of an earlier request that was never answered: a late
    /// reply to a request we had already given up on.
    case staleReply
    /// A second reply to a request that was already answered.
    case duplicateReply
    /// The mode is not 4 (server).
    case wrongMode(UInt8)
    /// The version is not 1–4.
    case unsupportedVersion(UInt8)
    /// Stratum 0: a Kiss-o'-Death message with this code.
    case kissOfDeath(NTPPacket.KissCode)
    /// Leap indicator 3: the server says its clock is not synchronised.
    case unsynchronized
    /// Stratum 16 or more: the server is unsynchronised.
    case stratumTooHigh(UInt8)
    /// The receive timestamp (T2) is zero.
    case zeroReceiveTimestamp
    /// The transmit timestamp (T3) is zero.
    case zeroTransmitTimestamp
    /// The server says it received the request after it sent the reply (T2 > T3).
    case receiveAfterTransmit
    /// The server's root distance (root delay / 2 + root dispersion) exceeds the limit.
    case rootDistanceTooLarge(Duration, limit: Duration)
    /// The computed round-trip delay is negative: the server claims to have held the request
    /// longer than the whole round trip took.
    case negativeDelay(Duration)
    /// The offset exceeds the configured ceiling.
    case offsetTooLarge(Duration, limit: Duration)
    /// An authenticated source's ``PacketProtection`` refused the datagram, or could not protect a
    /// request: the failure's code names why (e.g. `nts_bad_authenticator`), its reason explains it.
    case unauthenticated(ProtectionFailure)

    /// A stable machine-readable code, used in JSON output and by tests.
    package var code: String {
        switch self {
        case .tooShort: return "too_short"
        case .originMismatch: return "origin_mismatch"
        case .staleReply: return "stale_reply"
        case .duplicateReply: return "duplicate_reply"
        case .wrongMode: return "wrong_mode"
        case .unsupportedVersion: return "unsupported_version"
        case .kissOfDeath: return "kiss_of_death"
        case .unsynchronized: return "unsynchronized"
        case .stratumTooHigh: return "stratum_too_high"
        case .zeroReceiveTimestamp: return "zero_receive_timestamp"
        case .zeroTransmitTimestamp: return "zero_transmit_timestamp"
        case .receiveAfterTransmit: return "receive_after_transmit"
        case .rootDistanceTooLarge: return "root_distance_too_large"
        case .negativeDelay: return "negative_delay"
        case .offsetTooLarge: return "offset_too_large"
        case .unauthenticated(let failure): return failure.code.rawValue
        }
    }

    /// A readable explanation.
    package var description: String {
        switch self {
        case .tooShort(let length):
            return "reply too short (\(length) bytes, need \(NTPPacket.headerSize))"
        case .originMismatch:
            return "origin timestamp does not match any request sent (spoofed or bogus reply)"
        case .staleReply:
            return "late reply to an earlier request that had already timed out"
        case .duplicateReply:
            return "duplicate reply to a request that was already answered"
        case .wrongMode(let mode):
            return "reply mode \(mode), expected 4 (server)"
        case .unsupportedVersion(let version):
            return "unsupported NTP version \(version)"
        case .kissOfDeath(let code):
            return "Kiss-o'-Death \(code)"
        case .unsynchronized:
            return "server unsynchronised (leap indicator 3)"
        case .stratumTooHigh(let stratum):
            return "server unsynchronised (stratum \(stratum))"
        case .zeroReceiveTimestamp:
            return "receive timestamp is zero"
        case .zeroTransmitTimestamp:
            return "transmit timestamp is zero"
        case .receiveAfterTransmit:
            return "receive timestamp is after transmit timestamp"
        case .rootDistanceTooLarge(let distance, let limit):
            return "root distance \(distance.formattedSeconds) exceeds \(limit.formattedSeconds)"
        case .negativeDelay(let delay):
            return "negative round-trip delay \(delay.formattedSeconds)"
        case .offsetTooLarge(let offset, let limit):
            return "offset \(offset.formattedSeconds) exceeds the ceiling \(limit.formattedSeconds)"
        case .unauthenticated(let failure):
            return failure.reason
        }
    }

    /// Whether the reply was authentic (it echoed our nonce) but unusable. Inauthentic datagrams
    /// (spoofed, stale, duplicate, too short, failing authentication) say nothing about the server.
    package var isFromServer: Bool {
        switch self {
        case .tooShort, .originMismatch, .staleReply, .duplicateReply, .unauthenticated: return false
        default: return true
        }
    }
}
