import SNTP
import Testing
import TimeValues

@testable import NTS

/// NTS extension fields for NTPv4 (RFC 8915 §5, RFC 7822 framing): the request layout, the reply
/// parser, the encrypted-field parser.
struct NTSExtensionFieldTests {
    /// A client-mode header (version 4, mode 3) with a transmit timestamp.
    static let header = NTPPacket.clientRequest(nonce: NTPTimestamp(rawValue: 0xe901_0203_0405_0607))

    /// A 32-byte Unique Identifier.
    static let uniqueIdentifier = (0..<32).map { UInt8($0) }
    /// A 100-byte cookie, as chronyd's.
    static let cookie = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    /// A 16-byte nonce.
    static let nonce = (0..<16).map { UInt8(0xa0 + $0) }

    /// A fake AEAD: the "ciphertext" is 16 bytes naming the associated-data length, nonce and plaintext.
    static func fakeSeal(_ ad: [UInt8], _ nonce: [UInt8], _ plaintext: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: ad.count >> 8), UInt8(truncatingIfNeeded: ad.count)] + nonce.prefix(14)
            + plaintext
    }

    /// A field header of `type` and `length` followed by `length - 4` bytes of `fill`.
    static func field(_ type: UInt16, length: Int, fill: UInt8 = 0) -> [UInt8] {
        [UInt8(type >> 8), UInt8(type & 0xff), UInt8(length >> 8), UInt8(length & 0xff)]
            + Array(repeating: fill, count: max(0, length - 4))
    }

    /// A Unique Identifier field with a 32-byte body.
    static let uidField = field(0x0104, length: 36, fill: 1)
    /// An authenticator field: nonce 16, ciphertext 16.
    static let authField: [UInt8] =
        [0x04, 0x04, 0x00, 40, 0x00, 16, 0x00, 16] + Array(repeating: 0xcc, count: 32)

    /// The error code of parsing `bytes` as a packet, or `nil` when they parse.
    static func code(_ bytes: [UInt8]) -> NTSError.Code? {
        do {
            _ = try NTSPacket(parsing: bytes)
            return nil
        } catch {
            return error.code
        }
    }

    /// The request's exact layout, and the bytes the AEAD closure is handed.
    @Test func requestLayoutWithAFakeAEAD() throws {
        var sealCalls = 0
        let request = try NTSRequest(
            header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: Self.cookie,
            placeholderCount: 2,
            nonce: Self.nonce)
        let bytes = try request.encoded { ad, nonce, plaintext throws(NTSError) in
            sealCalls += 1
            #expect(ad.count == 396)
            #expect(nonce == Self.nonce)
            #expect(plaintext.isEmpty)
            return Self.fakeSeal(ad, nonce, plaintext)
        }
        #expect(sealCalls == 1)
        #expect(bytes.count == 436)
        #expect(Array(bytes[0..<48]) == Self.header.encoded())
        #expect(Array(bytes[48..<52]) == [0x01, 0x04, 0x00, 36])
        #expect(Array(bytes[52..<84]) == Self.uniqueIdentifier)
        #expect(Array(bytes[84..<88]) == [0x02, 0x04, 0x00, 104])
        #expect(Array(bytes[88..<188]) == Self.cookie)
        for start in [188, 292] {
            #expect(Array(bytes[start..<(start + 4)]) == [0x03, 0x04, 0x00, 104])
            #expect(bytes[(start + 4)..<(start + 104)].allSatisfy { $0 == 0 })
        }
        #expect(Array(bytes[396..<404]) == [0x04, 0x04, 0x00, 40, 0x00, 16, 0x00, 16])
        #expect(Array(bytes[404..<420]) == Self.nonce)
        #expect(Array(bytes[420..<436]) == Self.fakeSeal(Array(bytes[0..<396]), Self.nonce, []))
        #expect(request.associatedData == Array(bytes[0..<396]))
    }

    /// A short cookie pads to the 16-byte minimum; a short nonce gets the additional padding.
    @Test func shortCookieAndNonceArePadded() throws {
        let request = try NTSRequest(
            header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: [1, 2, 3, 4, 5],
            placeholderCount: 1,
            nonce: Array(repeating: 9, count: 12))
        let bytes = try request.encoded(ciphertext: Array(repeating: 7, count: 17))
        // Cookie: 4 + 5 bytes, padded to the 16-byte minimum; the placeholder the same.
        #expect(Array(bytes[84..<100]) == [0x02, 0x04, 0x00, 16, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[100..<104]) == [0x03, 0x04, 0x00, 16])
        // Authenticator: 8 + nonce 12 + ciphertext 17 padded to 20 + 4 of additional padding.
        #expect(Array(bytes[116..<124]) == [0x04, 0x04, 0x00, 44, 0x00, 12, 0x00, 17])
        #expect(bytes.count == 116 + 44)
        #expect(bytes.suffix(7).allSatisfy { $0 == 0 })
        let parsed = try NTSPacket(parsing: bytes)
        #expect(
            parsed.authenticator
                == NTSAuthenticator(
                    nonce: Array(repeating: 9, count: 12), ciphertext: Array(repeating: 7, count: 17)))
        #expect(parsed.associatedDataRange == 0..<116)
    }

    /// An encoded request parses back with its fields, offsets and authenticated range.
    @Test func encodeParseRoundTrip() throws {
        let request = try NTSRequest(
            header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: Self.cookie,
            placeholderCount: 7,
            nonce: Self.nonce)
        let bytes = try request.encoded { ad, nonce, plaintext throws(NTSError) in
            Self.fakeSeal(ad, nonce, plaintext)
        }
        let packet = try NTSPacket(parsing: bytes)
        #expect(packet.header == Self.header)
        #expect(packet.uniqueIdentifier == Self.uniqueIdentifier)
        #expect(
            packet.fields.map(\.field.type) == [.uniqueIdentifier, .cookie]
                + Array(repeating: .cookiePlaceholder, count: 7) + [.authenticator])
        #expect(packet.fields.map(\.offset) == [48, 84] + (0..<7).map { 188 + $0 * 104 } + [916])
        #expect(packet.associatedDataRange == 0..<916)
        #expect(Array(bytes[packet.associatedDataRange]) == request.associatedData)
        #expect(packet.authenticator.nonce == Self.nonce)
        #expect(packet.encoded() == bytes)
    }

    /// The encoder refuses inputs outside their bounds.
    @Test func requestInputsAreBounded() {
        #expect(throws: NTSError.self) {
            try NTSRequest(
                header: Self.header, uniqueIdentifier: [1], cookie: Self.cookie, placeholderCount: 0,
                nonce: Self.nonce)
        }
        #expect(throws: NTSError.self) {
            try NTSRequest(
                header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: [], placeholderCount: 0,
                nonce: Self.nonce)
        }
        #expect(throws: NTSError.self) {
            try NTSRequest(
                header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: Self.cookie,
                placeholderCount: 8, nonce: Self.nonce)
        }
        #expect(throws: NTSError.self) {
            try NTSRequest(
                header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: Self.cookie,
                placeholderCount: 0, nonce: [])
        }
        #expect(throws: NTSError.self) {
            try NTSRequest(
                header: Self.header, uniqueIdentifier: Self.uniqueIdentifier, cookie: Self.cookie,
                placeholderCount: 0, nonce: Self.nonce
            )
            .encoded(ciphertext: [1, 2, 3])
        }
    }

    /// Every framing violation of a packet, each with its code.
    @Test func malformedPackets() {
        let head = Self.header.encoded()
        #expect(Self.code(Array(head.prefix(47))) == .truncatedField)
        #expect(Self.code(head) == .noExtensionFields)
        #expect(Self.code(head + [1, 4]) == .truncatedField)
        #expect(Self.code(head + [1, 4, 0, 18] + Array(repeating: 0, count: 14)) == .misalignedField)
        #expect(Self.code(head + Self.field(0x0104, length: 12)) == .fieldTooShort)
        #expect(Self.code(head + Self.uidField + Array(Self.authField.dropLast(4))) == .truncatedField)
        #expect(Self.code(head + Self.field(0x0104, length: 32) + Self.authField) == .fieldTooShort)
        #expect(
            Self.code(head + Self.uidField + Self.authField + Self.field(0x0204, length: 16))
                == .authenticatorNotLast)
        #expect(Self.code(head + Self.uidField + Self.authField + Self.authField) == .duplicateAuthenticator)
        #expect(Self.code(head + Self.authField) == .missingUniqueIdentifier)
        #expect(
            Self.code(head + Self.uidField + Self.uidField + Self.authField) == .duplicateUniqueIdentifier)
        #expect(Self.code(head + Self.uidField) == .missingAuthenticator)
        #expect(Self.code(head + Self.uidField + Self.field(0x0404, length: 16)) == .fieldTooShort)
        #expect(Self.code(head + Self.uidField + Self.uidField.prefix(2) + [0, 36]) == .truncatedField)
        #expect(Self.code(head + Self.uidField + Array(repeating: 0, count: 8200)) == .packetTooLarge)
        let many = (0..<70).flatMap { _ in Self.field(0x0204, length: 16) }
        #expect(Self.code(head + Self.uidField + many + Self.authField) == .packetTooLarge)
    }

    /// Authenticator bodies whose lengths do not fit, and the additional-padding rule.
    @Test func malformedAuthenticators() {
        let head = Self.header.encoded() + Self.uidField
        // Lengths past the field.
        #expect(
            Self.code(head + [0x04, 0x04, 0x00, 40, 0x00, 16, 0x00, 20] + Array(repeating: 0, count: 32))
                == .malformedAuthenticator)
        // Ciphertext shorter than a SIV tag.
        #expect(
            Self.code(head + [0x04, 0x04, 0x00, 40, 0x00, 16, 0x00, 8] + Array(repeating: 0, count: 32))
                == .malformedAuthenticator)
        // Empty nonce.
        #expect(
            Self.code(head + [0x04, 0x04, 0x00, 40, 0x00, 0, 0x00, 16] + Array(repeating: 0, count: 32))
                == .malformedAuthenticator)
        // An 8-byte nonce without the additional padding to 16.
        #expect(
            Self.code(head + [0x04, 0x04, 0x00, 32, 0x00, 8, 0x00, 16] + Array(repeating: 0, count: 24))
                == .malformedAuthenticator)
        // With it, fine.
        #expect(
            Self.code(head + [0x04, 0x04, 0x00, 40, 0x00, 8, 0x00, 16] + Array(repeating: 0, count: 32))
                == nil)
    }

    /// Cookies in decrypted plaintext round-trip; broken framing fails.
    @Test func encryptedCookiesRoundTrip() throws {
        let cookies = [Self.cookie, Array(Self.cookie.reversed()), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]
        let plaintext = try NTSEncryptedFields.encode(cookies: cookies)
        #expect(plaintext.count == 104 * 2 + 16)
        let fields = try NTSEncryptedFields.parse(plaintext)
        #expect(NTSEncryptedFields.cookies(in: fields) == cookies)
        #expect(try NTSEncryptedFields.cookies(inPlaintext: plaintext) == cookies)
        #expect(try NTSEncryptedFields.parse([]) == [])
        #expect(try NTSEncryptedFields.cookies(inPlaintext: []) == [])
        for broken in [Array(plaintext.dropLast()), [2, 4, 0, 8, 1, 2, 3, 4]] {
            #expect(throws: NTSError.self) { try NTSEncryptedFields.parse(broken) }
            #expect(throws: NTSError.self) { try NTSEncryptedFields.cookies(inPlaintext: broken) }
        }
        // Only the Cookie fields count: another field between them is skipped.
        let mixed =
            try NTPExtensionField(type: .cookie, body: cookies[0]).encoded()
            + NTPExtensionField(type: .uniqueIdentifier, body: Array(repeating: 9, count: 32)).encoded()
            + NTPExtensionField(type: .cookie, body: cookies[2]).encoded()
        #expect(try NTSEncryptedFields.cookies(inPlaintext: mixed) == [cookies[0], cookies[2]])
    }
}

/// Regressions found by the `ntsef` fuzz target.
struct NTSExtensionFieldFuzzRegressionTests {
    /// A request with the longest cookies and every placeholder would exceed the packet cap that
    /// the parser enforces: the encoder refuses it instead of producing a packet nobody accepts.
    @Test func requestPastThePacketCapIsRefused() throws {
        let header = NTSExtensionFieldTests.header
        let uid = NTSExtensionFieldTests.uniqueIdentifier
        do {
            _ = try NTSRequest(
                header: header, uniqueIdentifier: uid, cookie: Array(repeating: 1, count: 1024),
                placeholderCount: 7,
                nonce: NTSExtensionFieldTests.nonce)
            Issue.record("a request past the cap was laid out")
        } catch {
            #expect(error.code == .unencodable)
        }
        let largest = try NTSRequest(
            header: header, uniqueIdentifier: uid, cookie: Array(repeating: 1, count: 1024),
            placeholderCount: 6,
            nonce: NTSExtensionFieldTests.nonce)
        let bytes = try largest.encoded(ciphertext: Array(repeating: 2, count: 16))
        #expect(try NTSPacket(parsing: bytes).fields.count == 9)
        #expect(throws: NTSError.self) { try largest.encoded(ciphertext: Array(repeating: 2, count: 2000)) }
    }
}
