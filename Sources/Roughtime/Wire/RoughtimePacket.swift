/// The packet framing of RFC 10049 §5 and the drafts: the `uint64` 0x4d49544847554f52
/// (`ROUGHTIM` in ASCII), the `uint32` length of the message, then the message. Google-Roughtime
/// sends bare messages.
package enum RoughtimePacket {
    /// `ROUGHTIM`.
    package static let magic: [UInt8] = Array("ROUGHTIM".utf8)
    /// The length of the framing header: 12 bytes.
    package static let headerLength = 12
    /// The size a UDP request's message is padded to: 1024 bytes (RFC 10049 §5.1).
    package static let requestSize = 1024

    /// `message` framed.
    package static func frame(_ message: [UInt8]) -> [UInt8] {
        magic + RoughtimeMessage.bytes(UInt32(truncatingIfNeeded: message.count)) + message
    }

    /// Whether `datagram` starts with `ROUGHTIM`.
    package static func isFramed(_ datagram: [UInt8]) -> Bool {
        datagram.count >= magic.count && datagram.prefix(magic.count).elementsEqual(magic)
    }

    /// The message inside a framed `datagram`.
    /// - Throws: `bad_framing` without the magic; `framing_length_mismatch` when the length field
    ///   does not match the rest of the datagram exactly (a reply cut short, or trailing bytes).
    package static func message(in datagram: [UInt8]) throws(RoughtimeError) -> ArraySlice<UInt8> {
        guard datagram.count >= headerLength, isFramed(datagram) else {
            throw RoughtimeError(
                .badFraming, "\(datagram.count) bytes that do not start with ROUGHTIM and a length")
        }
        let length = Int(RoughtimeMessage.uint32(datagram, at: magic.count))
        guard length == datagram.count - headerLength else {
            throw RoughtimeError(
                .framingLengthMismatch,
                "the framing announces \(length) bytes of message, \(datagram.count - headerLength) follow")
        }
        return datagram[headerLength...]
    }
}
