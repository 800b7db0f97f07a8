import NTS
import NetClockTLS
import SNTP
import TimeValues

extension FakeNTSServer {
    /// What the server does with one NTP datagram, and why.
    package struct NTPOutcome: Sendable {
        /// The reply to send; nil to drop the request.
        package var reply: [UInt8]?
        /// Why the request was refused, if it was.
        package var rejection: RejectionReason?
        /// Whether the request was a plain (non-NTS) one.
        var plain = false
        /// Whether the request's cookie opened and its authenticator verified.
        package var authenticated = false
        /// The new cookies in the reply.
        package var cookiesIssued = 0
        /// The request's cookie, if it had one.
        var cookie: [UInt8]?
        /// The request's Unique Identifier, if it framed as an NTS request.
        var uniqueIdentifier: [UInt8]?
    }

    /// Answers NTP requests (RFC 8915 §5): pure functions of the request, the configuration, the
    /// stamped instants and the cookie jar, with no clock or socket, so each behaviour is visible in
    /// the bytes it returns.
    package enum NTPResponder {
        /// The most new cookies a reply carries (the one spent plus seven placeholders).
        static let maximumCookies = 8
        /// The length of the nonce of the reply's authenticator.
        static let nonceLength = 16

        /// The outcome for `bytes`, received at `receiveTime` (T2) and answered at `transmitTime`
        /// (T3), both on the server's clock.
        package static func respond(
            to bytes: [UInt8], receiveTime: UnixTime, transmitTime: UnixTime, configuration: Configuration,
            jar: CookieJar
        ) -> NTPOutcome {
            var outcome = NTPOutcome()
            guard let header = try? NTPPacket(decoding: bytes) else {
                outcome.rejection = .undecodable
                return outcome
            }
            guard header.mode == .client else {
                outcome.rejection = .notClientMode
                return outcome
            }
            let correct = FakeNTPServer.ReplyBuilder.correctReply(
                to: header, receiveTime: receiveTime, transmitTime: transmitTime,
                configuration: configuration.headerConfiguration)
            guard bytes.count > NTPPacket.headerSize else {
                outcome.plain = true
                outcome.reply = correct.encoded()
                return outcome
            }
            guard let packet = try? NTSPacket(parsing: bytes) else {
                outcome.rejection = .malformedNTS
                return outcome
            }
            outcome.uniqueIdentifier = packet.uniqueIdentifier
            let cookies = packet.fields.filter { $0.field.type == .cookie }.map(\.field.body)
            outcome.cookie = cookies.first
            guard cookies.count == 1, let keys = jar.open(cookies[0]) else {
                outcome.rejection = .unknownCookie
                outcome.reply = nak(to: header, uniqueIdentifier: packet.uniqueIdentifier)
                return outcome
            }
            let associatedData = Array(bytes[packet.associatedDataRange])
            guard
                let plaintext = try? jar.keyCache.keyed(keys.c2s)?.open(
                    associatedData: [associatedData, packet.authenticator.nonce],
                    ciphertext: packet.authenticator.ciphertext)
            else {
                outcome.rejection = .badAuthenticator
                outcome.reply = nak(to: header, uniqueIdentifier: packet.uniqueIdentifier)
                return outcome
            }
            outcome.authenticated = true
            // Placeholders may travel in the clear or inside the authenticator (RFC 8915 §5.7).
            let encrypted = (try? NTSEncryptedFields.parse(plaintext)) ?? []
            let placeholders = (packet.fields.map(\.field) + encrypted).filter {
                $0.type == .cookiePlaceholder
            }
            let wanted = min(1 + placeholders.count, maximumCookies)
            if configuration.behaviour == .nak {
                outcome.reply = nak(to: header, uniqueIdentifier: packet.uniqueIdentifier)
                return outcome
            }
            let newCookies: [[UInt8]] =
                configuration.behaviour == .noNewCookies
                ? [] : (0..<wanted).compactMap { _ in jar.cookie(for: keys) }
            outcome.cookiesIssued = newCookies.count
            outcome.reply = reply(
                correct, uniqueIdentifier: packet.uniqueIdentifier, cookies: newCookies,
                key: jar.keyCache.keyed(keys.s2c), behaviour: configuration.behaviour)
            return outcome
        }

        /// The NTS reply with `cookies` sealed under `key`, as `behaviour` shapes it.
        static func reply(
            _ header: NTPPacket, uniqueIdentifier: [UInt8], cookies: [[UInt8]], key: AESSIVKey?,
            behaviour: Behaviour
        ) -> [UInt8]? {
            if behaviour == .noExtensionFields { return header.encoded() }
            var echoed = uniqueIdentifier
            if behaviour == .wrongUniqueIdentifier {
                repeat {
                    echoed = CookieJar.randomBytes(uniqueIdentifier.count)
                } while echoed == uniqueIdentifier
            }
            var fields: [NTPExtensionField] = []
            if behaviour != .missingUniqueIdentifier {
                guard let field = try? NTPExtensionField(type: .uniqueIdentifier, body: echoed) else {
                    return nil
                }
                fields.append(field)
            }
            let associatedData = NTSPacket.encode(header: header, fields: fields)
            let nonce = CookieJar.randomBytes(nonceLength)
            guard let plaintext = try? NTSEncryptedFields.encode(cookies: cookies),
                var ciphertext = try? key?.seal(
                    associatedData: [associatedData, nonce], plaintext: plaintext)
            else { return nil }
            if behaviour == .badAuthenticator { ciphertext[0] ^= 0x01 }
            guard let authenticator = try? NTSAuthenticator(nonce: nonce, ciphertext: ciphertext).field()
            else {
                return nil
            }
            var bytes = associatedData + authenticator.encoded()
            switch behaviour {
            case .oversizedExtensionField:
                // The first field's length word, right after the 48-byte header and its type word.
                bytes[NTPPacket.headerSize + 2] = 0xFF
                bytes[NTPPacket.headerSize + 3] = 0xFC
            case .truncatedExtensionField:
                bytes.removeLast(8)
            default:
                break
            }
            return bytes
        }

        /// An NTS NAK (RFC 8915 §5.7): a Kiss-o'-Death `NTSN` with stratum 0, the request's transmit
        /// timestamp as origin, the Unique Identifier echoed and no authenticator.
        static func nak(to request: NTPPacket, uniqueIdentifier: [UInt8]) -> [UInt8]? {
            let header = NTPPacket(
                leap: .alarm, version: 4, mode: .server, stratum: .kissOfDeath, poll: request.poll,
                precision: NTPPacket.Log2Seconds(rawValue: -20),
                referenceID: NTPPacket.ReferenceID(ascii: "NTSN"),
                referenceTimestamp: .zero, originTimestamp: request.transmitTimestamp,
                receiveTimestamp: .zero,
                transmitTimestamp: .zero)
            guard let field = try? NTPExtensionField(type: .uniqueIdentifier, body: uniqueIdentifier) else {
                return nil
            }
            return NTSPacket.encode(header: header, fields: [field])
        }
    }
}
