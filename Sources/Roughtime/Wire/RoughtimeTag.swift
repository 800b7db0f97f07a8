/// A Roughtime tag: four bytes, one to four capital ASCII letters padded with zero bytes, sorted and
/// compared as the little-endian `uint32` they form (RFC 10049 §4.1.3): "NONC" is 0x434e4f4e.
///
/// An open set: any four bytes are a tag (servers grease replies with undefined ones, which a
/// client ignores), with the defined ones as static members.
package struct RoughtimeTag: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The tag as a little-endian `uint32`.
    package let rawValue: UInt32

    /// The tag with this `uint32` value.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The tag spelled by `name` (up to four ASCII bytes, zero-padded): the first byte is the least
    /// significant.
    package init(_ name: StaticString) {
        var value: UInt32 = 0
        name.withUTF8Buffer { bytes in
            for (index, byte) in bytes.prefix(4).enumerated() { value |= UInt32(byte) << (8 * UInt32(index)) }
        }
        self.rawValue = value
    }

    /// The four bytes on the wire, least significant first.
    package var bytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt32($0))) } }

    /// Whether `lhs` sorts before `rhs` (by `uint32` value, as in a message header).
    package static func < (lhs: RoughtimeTag, rhs: RoughtimeTag) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The tag's letters without its zero padding, other bytes as `\xNN` (e.g. `VER`, `PAD\xff`).
    package var description: String {
        var text = ""
        var trailing = bytes
        while trailing.last == 0 { trailing.removeLast() }
        for byte in trailing {
            if (0x21...0x7E).contains(byte) {
                text.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = String(byte, radix: 16)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return text
    }

    /// `SIG`: an Ed25519 signature.
    package static let sig = RoughtimeTag("SIG")
    /// `VER`: the versions offered (request) or the version chosen (response).
    package static let ver = RoughtimeTag("VER")
    /// `SRV`: `H(0xff || long-term public key)`, the key the client expects.
    package static let srv = RoughtimeTag("SRV")
    /// `NONC`: the request's nonce.
    package static let nonc = RoughtimeTag("NONC")
    /// `DELE`: the delegation (`PUBK`, `MINT`, `MAXT`) the long-term key signs.
    package static let dele = RoughtimeTag("DELE")
    /// `TYPE`: 0 in a request, 1 in a response.
    package static let type = RoughtimeTag("TYPE")
    /// `PATH`: the Merkle path from the request's leaf to `ROOT`.
    package static let path = RoughtimeTag("PATH")
    /// `RADI`: the radius of the server's uncertainty.
    package static let radi = RoughtimeTag("RADI")
    /// `PUBK`: the delegated (online) public key.
    package static let pubk = RoughtimeTag("PUBK")
    /// `MIDP`: the timestamp of the moment of processing.
    package static let midp = RoughtimeTag("MIDP")
    /// `SREP`: the signed response (`VER`, `RADI`, `MIDP`, `VERS`, `ROOT`).
    package static let srep = RoughtimeTag("SREP")
    /// `VERS`: the versions the server supports (signed).
    package static let vers = RoughtimeTag("VERS")
    /// `MINT`: the start of the delegation's validity.
    package static let mint = RoughtimeTag("MINT")
    /// `ROOT`: the Merkle tree's root.
    package static let root = RoughtimeTag("ROOT")
    /// `CERT`: the delegation and its signature.
    package static let cert = RoughtimeTag("CERT")
    /// `MAXT`: the end of the delegation's validity.
    package static let maxt = RoughtimeTag("MAXT")
    /// `INDX`: the request's leaf index in the Merkle tree.
    package static let indx = RoughtimeTag("INDX")
    /// `ZZZZ`: padding (RFC 10049 and the drafts).
    package static let zzzz = RoughtimeTag("ZZZZ")
    /// `PAD\xff`: padding in Google-Roughtime requests.
    package static let googlePadding = RoughtimeTag(rawValue: 0xFF44_4150)
}
