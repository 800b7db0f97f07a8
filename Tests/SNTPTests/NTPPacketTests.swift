import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import SNTP
import WallClockReference

/// Encoding and decoding of the 48-byte header, including packets captured from real chronyd and
/// ntpdig (../shared/vectors/real-peers.json, copied here so the tests are self-contained).
@Suite(.wallClockReference)
struct NTPPacketTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }

    static let chronyReply =
        "240800e700000000000000007f7f0101eeb759b9da61d8bc0123456789abcdefeeb759bb577da8afeeb759bb5781a1d8"

    @Test func decodesARealChronydReply() throws {
        let packet = try NTPPacket(decoding: Self.bytes(Self.chronyReply))
        #expect(packet.leap == .noWarning)
        #expect(packet.version == 4)
        #expect(packet.mode == .server)
        #expect(packet.stratum.rawValue == 8)
        #expect(packet.poll.rawValue == 0)
        #expect(packet.precision.rawValue == -25)
        #expect(packet.rootDelay == .zero)
        #expect(packet.rootDispersion == .zero)
        #expect(packet.referenceID.rawValue == 0x7F7F_0101)
        #expect(packet.referenceID.display(stratum: packet.stratum) == "127.127.1.1")
        #expect(packet.originTimestamp.rawValue == 0x0123_4567_89AB_CDEF)
        #expect(packet.kissCode == nil)
        // T2 is within 0.1 ms of the client's send time recorded in the capture (1796004667.3417408).
        let t2 = packet.receiveTimestamp.unixTime
        #expect(abs(t2.secondsDouble - 1_796_004_667.3417408) < 1e-4)
        #expect(packet.encoded() == Self.bytes(Self.chronyReply))
    }

    @Test func realClientRequests() throws {
        let ntpdig = try NTPPacket(
            decoding: Self.bytes(
                "e3000000000000000000000000000000000000000000000000000000000000000000000000000000eeb759bff9e61000"
            ))
        #expect(ntpdig.leap == .alarm)
        #expect(ntpdig.mode == .client)
        #expect(ntpdig.version == 4)
        let chrony = try NTPPacket(
            decoding: Self.bytes(
                "23000620000000000000000000000000000000000000000000000000000000000000000000000000d8d584238dd841b2"
            ))
        #expect(chrony.poll.rawValue == 6)
        #expect(chrony.precision.rawValue == 0x20)
        #expect(chrony.transmitTimestamp.rawValue == 0xD8D5_8423_8DD8_41B2)
    }

    @Test func ourRequestIsAllZeroButTheNonce() {
        let nonce = NTPTimestamp(rawValue: 0x0123_4567_89AB_CDEF)
        let bytes = NTPPacket.clientRequest(nonce: nonce).encoded()
        #expect(bytes.count == 48)
        #expect(bytes[0] == 0x23)  // LI 0, VN 4, mode 3: what chronyd sends
        #expect(bytes[1..<40].allSatisfy { $0 == 0 })
        #expect(Array(bytes[40...]) == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF])
    }

    @Test(arguments: [0, 1, 47])
    func shortInputIsATypedError(length: Int) {
        #expect(throws: SNTPError(code: .malformedPacket, reason: "")) {
            try NTPPacket(decoding: [UInt8](repeating: 0xFF, count: length))
        }
        do {
            _ = try NTPPacket(decoding: [UInt8](repeating: 0xFF, count: length))
        } catch {
            #expect(error.reason == "packet too short: \(length) bytes, an NTP header needs 48")
        }
    }

    @Test func extensionFieldsAreIgnoredAndEveryBitPatternRoundTrips() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let bytes = (0..<48).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let packet = try NTPPacket(decoding: bytes + [1, 2, 3, 4])
            #expect(packet.encoded() == bytes)
        }
    }

    @Test func kissCodesAndReferenceIDs() {
        let kod = NTPPacket(
            mode: .server, stratum: .kissOfDeath, referenceID: NTPPacket.ReferenceID(ascii: "RATE"))
        #expect(kod.kissCode == .rate)
        #expect(NTPPacket.KissCode(NTPPacket.ReferenceID(ascii: "DENY")).isTerminal)
        #expect(NTPPacket.KissCode(NTPPacket.ReferenceID(ascii: "RSTR")).isTerminal)
        #expect(!NTPPacket.KissCode(NTPPacket.ReferenceID(ascii: "XXXX")).isTerminal)
        #expect(NTPPacket.ReferenceID(ascii: "GPS").display(stratum: .primary) == "GPS")
        #expect(
            NTPPacket.ReferenceID(rawValue: 0x0A00_0001).display(stratum: NTPPacket.Stratum(rawValue: 3))
                == "10.0.0.1")
        #expect(NTPPacket.ReferenceID(rawValue: 0x0102_0304).display(stratum: .primary) == "0x01020304")
    }
}
