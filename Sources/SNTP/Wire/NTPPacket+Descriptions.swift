import NetClockPlatform
import TimeValues

// How the wire values print: as a person reads them in a log line, not as a dump of fields.

extension NTPPacket: CustomStringConvertible {
    /// A one-line summary, e.g. `server v4 stratum 2 leap none refid 192.0.2.7 root distance
    /// 1.250ms transmit 2026-12-01T03:00:00.123456Z`.
    public var description: String {
        var parts = ["\(mode) v\(version)", "stratum \(stratum)", "leap \(leap)"]
        if let code = kissCode {
            parts.append("kiss code \(code)")
        } else {
            parts.append("refid \(referenceID.display(stratum: stratum))")
        }
        parts.append("root distance \(rootDistance.formattedSeconds)")
        parts.append("transmit \(ISO8601.format(transmitTimestamp.unixTime, fractionDigits: 6))")
        return parts.joined(separator: " ")
    }
}

extension NTPPacket.LeapIndicator: CustomStringConvertible {
    /// The short name: `none`, `insert`, `delete` or `alarm`.
    public var description: String { name }
}

extension NTPPacket.Mode: CustomStringConvertible {
    /// The mode's name, e.g. `client` or `server`.
    public var description: String {
        switch rawValue {
        case 0: return "reserved"
        case 1: return "symmetric active"
        case 2: return "symmetric passive"
        case 3: return "client"
        case 4: return "server"
        case 5: return "broadcast"
        case 6: return "control"
        default: return "private"
        }
    }
}

extension NTPPacket.Stratum: CustomStringConvertible {
    /// The number, with what the special values mean: `2`, `0 (kiss-o'-death)`,
    /// `16 (unsynchronised)`.
    public var description: String {
        if isKissOfDeath { return "0 (kiss-o'-death)" }
        if isUnsynchronized { return "\(rawValue) (unsynchronised)" }
        return String(rawValue)
    }
}

extension NTPPacket.ReferenceID: CustomStringConvertible {
    /// The printable ASCII code when there is one (`GPS`, `LOCL`), else the dotted quad.
    public var description: String { asciiCode.map { $0.isEmpty ? ipv4 : $0 } ?? ipv4 }
}

extension NTPPacket.ShortFormat: CustomStringConvertible {
    /// The duration it encodes, e.g. `1.250ms`.
    public var description: String { duration.formattedSeconds }
}

extension NTPPacket.Log2Seconds: CustomStringConvertible {
    /// The power and its value, e.g. `2^-20 s (1.0µs)`.
    public var description: String { "2^\(rawValue) s (\(duration.formattedSeconds))" }
}
