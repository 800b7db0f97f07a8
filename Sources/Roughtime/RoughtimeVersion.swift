/// A Roughtime protocol version, as the `VER` and `VERS` tags and server lists number them.
///
/// This client speaks ``rfc`` (RFC 10049's version 1), the IETF drafts 10 to 15
/// (`0x8000000a`–`0x8000000f`, which servers such as `roughly` still answer), and
/// ``google`` (Google-Roughtime, the pre-IETF protocol, numbered 3000600613 in server lists; it
/// has no version on the wire).
public struct RoughtimeVersion: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The version number.
    public let rawValue: UInt32

    /// The version numbered `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Roughtime version 1, as RFC 10049 publishes it.
    public static let rfc = RoughtimeVersion(rawValue: 1)

    /// Google-Roughtime: no framing, 64-byte nonces, microseconds, full SHA-512 Merkle trees.
    public static let google = RoughtimeVersion(rawValue: 3_000_600_613)

    /// The IETF draft `number` (draft-ietf-ntp-roughtime-`number`): `0x80000000 | number`.
    public static func draft(_ number: UInt32) -> RoughtimeVersion {
        RoughtimeVersion(rawValue: 0x8000_0000 | number)
    }

    /// Every version this client speaks: RFC 10049, drafts 10 to 15, Google-Roughtime.
    public static let supported: [RoughtimeVersion] = [.rfc] + (10...15).map { draft($0) } + [.google]

    /// The versions a request offers unless told otherwise: RFC 10049 and drafts 10 to 15 (a server
    /// that speaks the RFC answers with it). Google-Roughtime cannot be offered beside them: its
    /// requests have another shape.
    public static let defaultOffer: [RoughtimeVersion] = [.rfc] + (10...15).map { draft($0) }

    /// Whether this client speaks the version.
    public var isSupported: Bool { Self.supported.contains(self) }

    /// The draft number, for a draft version.
    public var draftNumber: UInt32? {
        self != .google && rawValue & 0x8000_0000 != 0 ? rawValue & 0x7FFF_FFFF : nil
    }

    /// Whether `lhs` has the smaller number (the order `VER` lists are sorted in).
    public static func < (lhs: RoughtimeVersion, rhs: RoughtimeVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `RFC 10049`, `draft-12`, `Google-Roughtime`, or the number in hexadecimal.
    public var description: String {
        if self == .rfc { return "RFC 10049" }
        if self == .google { return "Google-Roughtime" }
        if let draft = draftNumber { return "draft-\(draft)" }
        return "0x" + String(rawValue, radix: 16)
    }
}
