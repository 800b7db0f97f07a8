import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NTSClient

/// The protection of NTS requests and the checks of replies (RFC 8915 §5.7), against replies built
/// here with the real AES-SIV: every tampered, stripped or misdirected reply is refused with its
/// own reason, and only an authentic one adds cookies.
struct NTSPacketProtectionTests {
    /// Keys and cookies as a key exchange would give them.
    static func association(cookies count: Int = 8) -> NTSAssociation {
        NTSAssociation(
            NTSKeyExchangeResult(
                keyExchangeAddress: SocketAddress.loopback(.ipv4, port: 4460), ntpHost: "127.0.0.1",
                ntpPort: 123,
                aead: 15, clientToServerKey: NTSRandom.bytes(32), serverToClientKey: NTSRandom.bytes(32),
                cookies: (0..<count).map { index in Array(repeating: UInt8(index), count: 100) }, warnings: []
            ))
    }

    /// A server-mode header answering `request`.
    static func replyHeader(to request: NTPPacket, stratum: UInt8 = 2) -> NTPPacket {
        var header = request
        header.mode = .server
        header.stratum = NTPPacket.Stratum(rawValue: stratum)
        header.originTimestamp = request.transmitTimestamp
        header.receiveTimestamp = NTPTimestamp(rawValue: 0xeeb8_0000_0000_0000)
        header.transmitTimestamp = NTPTimestamp(rawValue: 0xeeb8_0000_0001_0000)
        return header
    }

    /// A reply: `header`, the fields, an authenticator sealed with `key` over everything before it
    /// with `cookies` encrypted inside.
    static func reply(
        header: NTPPacket, fields: [NTPExtensionField], key: [UInt8], cookies: [[UInt8]]
    ) throws -> [UInt8] {
        let associatedData = NTSPacket.encode(header: header, fields: fields)
        let nonce = NTSRandom.bytes(16)
        let ciphertext = try AESSIV.seal(
            key: key, nonce: nonce, associatedData: [associatedData],
            plaintext: try NTSEncryptedFields.encode(cookies: cookies))
        return associatedData + (try NTSAuthenticator(nonce: nonce, ciphertext: ciphertext).field().encoded())
    }

    /// The code of the rejection `body` throws, or nil when it throws none.
    static func code(_ body: () throws(RejectionReason) -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return error.code
        }
    }

    /// A protected request for `protection`, parsed back: its header and packet.
    static func request(_ protection: inout NTSPacketProtection) throws -> (
        header: NTPPacket, packet: NTSPacket, bytes: [UInt8]
    ) {
        let header = NTPPacket.clientRequest(nonce: SystemNonceSource().nextNonce())
        let bytes = try protection.protect(header)
        return (header, try NTSPacket(parsing: bytes), bytes)
    }

    @Test func aRequestCarriesAFreshIdentifierOneCookieAndVerifiesWithTheClientKey() throws {
        let association = Self.association(cookies: 3)
        var protection = NTSPacketProtection(association: association)
        let (header, packet, bytes) = try Self.request(&protection)
        #expect(Array(bytes.prefix(48)) == header.encoded())
        #expect(packet.uniqueIdentifier.count == 32)
        let cookies = packet.fields.filter { $0.field.type == .cookie }
        #expect(cookies.map(\.field.body) == [Array(repeating: 0, count: 100)])
        // Two cookies left: five placeholders of the cookie's size refill the jar to eight.
        let placeholders = packet.fields.filter { $0.field.type == .cookiePlaceholder }
        #expect(placeholders.count == 5)
        #expect(placeholders.allSatisfy { $0.field.body.count == 100 })
        #expect(association.cookieCount == 2)
        let opened = try AESSIV.open(
            key: association.keys.clientToServer, nonce: packet.authenticator.nonce,
            associatedData: [Array(bytes[packet.associatedDataRange])],
            ciphertext: packet.authenticator.ciphertext)
        #expect(opened.isEmpty)
        // A second request never reuses the cookie or the identifier.
        let second = try Self.request(&protection)
        #expect(second.packet.uniqueIdentifier != packet.uniqueIdentifier)
        #expect(
            second.packet.fields.first { $0.field.type == .cookie }?.field.body
                == Array(repeating: 1, count: 100))
    }

    @Test func anAuthenticReplyIsAcceptedAndItsEncryptedCookiesKept() throws {
        let association = Self.association(cookies: 1)
        var protection = NTSPacketProtection(association: association)
        let (header, packet, _) = try Self.request(&protection)
        #expect(association.cookieCount == 0)
        let fresh = (0..<8).map { Array(repeating: UInt8(0x40 + $0), count: 100) }
        let reply = try Self.reply(
            header: Self.replyHeader(to: header),
            fields: [try NTPExtensionField(type: .uniqueIdentifier, body: packet.uniqueIdentifier)],
            key: association.keys.serverToClient, cookies: fresh)
        #expect(Self.code { () throws(RejectionReason) in try protection.verify(reply: reply) } == nil)
        #expect(association.cookieCount == 8)
        #expect(association.takeCookie()?.cookie == fresh[0])
        #expect(protection.authenticatedReplies == 1)
    }

    @Test func tamperedStrippedAndMisdirectedRepliesAreRefusedEachForItsReason() throws {
        let association = Self.association()
        var protection = NTSPacketProtection(association: association)
        let (header, packet, _) = try Self.request(&protection)
        let reply = Self.replyHeader(to: header)
        let ours = try NTPExtensionField(type: .uniqueIdentifier, body: packet.uniqueIdentifier)
        let s2c = association.keys.serverToClient
        let good = try Self.reply(header: reply, fields: [ours], key: s2c, cookies: [])
        let before = association.cookieCount

        var flippedTag = good
        flippedTag[flippedTag.count - 1] ^= 0x01
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: flippedTag) }
                == "nts_bad_authenticator")
        var flippedHeader = good
        flippedHeader[44] ^= 0x80  // a bit of T3 (the transmit timestamp): covered by the authenticator
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: flippedHeader) }
                == "nts_bad_authenticator")
        let wrongKey = try Self.reply(
            header: reply, fields: [ours], key: association.keys.clientToServer, cookies: [])
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: wrongKey) }
                == "nts_bad_authenticator")
        let other = try NTPExtensionField(type: .uniqueIdentifier, body: NTSRandom.bytes(32))
        let wrongIdentifier = try Self.reply(header: reply, fields: [other], key: s2c, cookies: [])
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: wrongIdentifier) }
                == "nts_unique_identifier_mismatch")
        let noIdentifier = try Self.reply(header: reply, fields: [], key: s2c, cookies: [])
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: noIdentifier) }
                == "nts_missing_unique_identifier")
        let downgraded = reply.encoded()
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: downgraded) }
                == "nts_unauthenticated_reply")
        let noAuthenticator = NTSPacket.encode(header: reply, fields: [ours])
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: noAuthenticator) }
                == "nts_missing_authenticator")
        let truncated = Array(good.dropLast(4))
        #expect(
            Self.code { () throws(RejectionReason) in try protection.verify(reply: truncated) }
                == "nts_malformed_reply")
        // None of them touched the cookies; the genuine reply still passes afterwards.
        #expect(association.cookieCount == before)
        #expect(Self.code { () throws(RejectionReason) in try protection.verify(reply: good) } == nil)
    }

    @Test func anNTSNAKNeedsOurIdentifierAndThenAsksForANewKeyExchange() throws {
        let association = Self.association()
        var protection = NTSPacketProtection(association: association)
        let (header, packet, _) = try Self.request(&protection)
        var nak = Self.replyHeader(to: header, stratum: 0)
        nak.referenceID = NTPPacket.ReferenceID(ascii: "NTSN")
        let stranger = NTSPacket.encode(
            header: nak, fields: [try NTPExtensionField(type: .uniqueIdentifier, body: NTSRandom.bytes(32))])
        #expect(
            Self.code { () throws(RejectionReason) in
                try protection.verify(kissOfDeath: stranger, code: .ntsNegativeAcknowledgement)
            }
                == "nts_unique_identifier_mismatch")
        #expect(!association.needsKeyExchange)
        let bare = nak.encoded()
        #expect(
            Self.code { () throws(RejectionReason) in
                try protection.verify(kissOfDeath: bare, code: .ntsNegativeAcknowledgement)
            }
                == "nts_unique_identifier_mismatch")
        let genuine = NTSPacket.encode(
            header: nak,
            fields: [try NTPExtensionField(type: .uniqueIdentifier, body: packet.uniqueIdentifier)])
        #expect(
            Self.code { () throws(RejectionReason) in
                try protection.verify(kissOfDeath: genuine, code: .ntsNegativeAcknowledgement)
            }
                == nil)
        #expect(association.needsKeyExchange)
    }

    @Test func anUnauthenticatedRateKissIsDiscardedAndAnAuthenticatedOneAccepted() throws {
        let association = Self.association()
        var protection = NTSPacketProtection(association: association)
        let (header, packet, _) = try Self.request(&protection)
        var kiss = Self.replyHeader(to: header, stratum: 0)
        kiss.referenceID = NTPPacket.ReferenceID(ascii: "RATE")
        #expect(
            Self.code { () throws(RejectionReason) in
                try protection.verify(kissOfDeath: kiss.encoded(), code: .rate)
            }
                == "nts_unauthenticated_kiss")
        let authenticated = try Self.reply(
            header: kiss,
            fields: [try NTPExtensionField(type: .uniqueIdentifier, body: packet.uniqueIdentifier)],
            key: association.keys.serverToClient, cookies: [])
        #expect(
            Self.code { () throws(RejectionReason) in
                try protection.verify(kissOfDeath: authenticated, code: .rate)
            } == nil)
    }

    @Test func noCookieLeftMeansNoRequestAndANewKeyExchange() throws {
        let association = Self.association(cookies: 1)
        var protection = NTSPacketProtection(association: association)
        _ = try Self.request(&protection)
        #expect(association.needsKeyExchange)
        let header = NTPPacket.clientRequest(nonce: SystemNonceSource().nextNonce())
        #expect(
            Self.code { () throws(RejectionReason) in _ = try protection.protect(header) } == "nts_no_cookies"
        )
    }
}
