import Roughtime
import Testing

/// Tagged messages and the packet framing (RFC 10049 §4, §5): encoding, and every rule the parser
/// enforces, each with its own code.
@Suite struct RoughtimeMessageTests {
    @Test func tagsAreLittleEndianASCII() {
        #expect(RoughtimeTag.nonc.rawValue == 0x434E_4F4E)
        #expect(RoughtimeTag.ver.rawValue == 0x0052_4556)
        #expect(RoughtimeTag.nonc.bytes == Array("NONC".utf8))
        #expect(RoughtimeTag.ver.bytes == [0x56, 0x45, 0x52, 0x00])
        #expect(RoughtimeTag.zzzz.rawValue == 0x5A5A_5A5A)
        #expect(RoughtimeTag.ver.description == "VER")
        #expect(RoughtimeTag.googlePadding.description == "PAD\\xff")
        // The RFC's tag registry, in ascending order.
        let registry: [RoughtimeTag] = [
            .sig, .ver, .srv, .nonc, .dele, .type, .path, .radi, .pubk, .midp, .srep, .vers, .mint, .root,
            .cert,
            .maxt, .indx, .zzzz,
        ]
        #expect(registry == registry.sorted())
    }

    @Test func encodesSortedWithOffsetsAndParsesBack() throws {
        let message = RoughtimeMessage([
            .init(.nonc, [1, 2, 3, 4, 5, 6, 7, 8]), .init(.ver, [1, 0, 0, 0]), .init(.path, []),
        ])
        #expect(message.entries.map(\.tag) == [.ver, .nonc, .path])
        let bytes = message.encoded
        // 3 tags: count, 2 offsets (4, 12), 3 tags, 12 bytes of values.
        #expect(bytes.count == 4 + 8 + 12 + 12)
        #expect(Array(bytes[0..<12]) == [3, 0, 0, 0, 4, 0, 0, 0, 12, 0, 0, 0])
        let parsed = try RoughtimeMessage(parsing: bytes)
        #expect(parsed == message)
        #expect(parsed.value(.path) == [])
        #expect(parsed.value(.srep) == nil)
        #expect(try parsed.uint32(.ver, in: "m") == 1)
        #expect(try parsed.uint64(.nonc, in: "m") == 0x0807_0605_0403_0201)
    }

    @Test func oneTagMessage() throws {
        let parsed = try RoughtimeMessage(parsing: [1, 0, 0, 0] + RoughtimeTag.radi.bytes + [3, 0, 0, 0])
        #expect(try parsed.uint32(.radi, in: "m") == 3)
    }

    static let malformed: [(name: String, bytes: [UInt8], code: RoughtimeError.Code)] = [
        ("three bytes", [1, 0, 0], .truncatedMessage),
        ("zero tags", [0, 0, 0, 0], .emptyMessage),
        ("two tags, header cut", [2, 0, 0, 0, 4, 0, 0, 0] + RoughtimeTag.ver.bytes, .truncatedMessage),
        ("huge count", [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0], .truncatedMessage),
        (
            "values not a multiple of 4", [1, 0, 0, 0] + RoughtimeTag.ver.bytes + [1, 2, 3],
            .misalignedMessage
        ),
        (
            "misaligned offset",
            [2, 0, 0, 0, 2, 0, 0, 0] + RoughtimeTag.ver.bytes + RoughtimeTag.nonc.bytes + [0, 0, 0, 0],
            .misalignedMessage
        ),
        (
            "offset past the values",
            [2, 0, 0, 0, 8, 0, 0, 0] + RoughtimeTag.ver.bytes + RoughtimeTag.nonc.bytes + [0, 0, 0, 0],
            .badOffsets
        ),
        (
            "decreasing offsets",
            [3, 0, 0, 0, 8, 0, 0, 0, 4, 0, 0, 0] + RoughtimeTag.ver.bytes + RoughtimeTag.nonc.bytes
                + RoughtimeTag.path.bytes + [UInt8](repeating: 0, count: 12), .badOffsets
        ),
        (
            "duplicate tag",
            [2, 0, 0, 0, 4, 0, 0, 0] + RoughtimeTag.ver.bytes + RoughtimeTag.ver.bytes
                + [UInt8](repeating: 0, count: 8),
            .duplicateTag
        ),
        (
            "unsorted tags",
            [2, 0, 0, 0, 4, 0, 0, 0] + RoughtimeTag.nonc.bytes + RoughtimeTag.ver.bytes
                + [UInt8](repeating: 0, count: 8),
            .unsortedTags
        ),
    ]

    @Test("malformed messages are refused with their code", arguments: malformed.indices)
    func malformedMessage(_ index: Int) {
        let (name, bytes, code) = Self.malformed[index]
        #expect(throws: RoughtimeError(code, "")) { try RoughtimeMessage(parsing: bytes) }
        _ = name
    }

    @Test func typedAccessorsNameWhatIsWrong() throws {
        let message = RoughtimeMessage([.init(.radi, [3, 0, 0, 0, 0, 0, 0, 0]), .init(.midp, [1, 2, 3, 4])])
        #expect(throws: RoughtimeError(.oversizedTag, "")) { try message.uint32(.radi, in: "SREP") }
        #expect(throws: RoughtimeError(.truncatedTag, "")) { try message.uint64(.midp, in: "SREP") }
        #expect(throws: RoughtimeError(.missingTag, "")) { try message.required(.root, in: "SREP") }
        do {
            _ = try message.required(.root, in: "SREP")
        } catch {
            #expect(error.reason == "no ROOT in SREP")
        }
    }

    @Test func framing() throws {
        let message = RoughtimeMessage([.init(.radi, [3, 0, 0, 0])]).encoded
        let packet = RoughtimePacket.frame(message)
        #expect(Array(packet.prefix(8)) == Array("ROUGHTIM".utf8))
        #expect(Array(packet[8..<12]) == [UInt8(message.count), 0, 0, 0])
        #expect(Array(try RoughtimePacket.message(in: packet)) == message)
        #expect(throws: RoughtimeError(.badFraming, "")) { try RoughtimePacket.message(in: message) }
        #expect(throws: RoughtimeError(.badFraming, "")) {
            try RoughtimePacket.message(in: Array("ROUGHTIM".utf8))
        }
        #expect(throws: RoughtimeError(.framingLengthMismatch, "")) {
            try RoughtimePacket.message(in: Array(packet.dropLast(4)))
        }
        #expect(throws: RoughtimeError(.framingLengthMismatch, "")) {
            try RoughtimePacket.message(in: packet + [0, 0, 0, 0])
        }
    }
}
