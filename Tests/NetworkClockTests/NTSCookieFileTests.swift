import Foundation
import NTSClient
import NetClockPlatform
import SNTP
import Testing

@testable import NetworkClock

/// The NTS keys and cookies kept beside the anchor: what is written comes back only in the same
/// boot under the same trust roots, and anything damaged costs a key exchange, never a crash.
struct NTSCookieFileTests {
    static let server = ServerName.nts("time.example.com")

    static func saved(cookies: Int = 3, keyLength: Int = 32) -> NTSAssociation.Saved {
        NTSAssociation.Saved(
            keyExchangeHost: "192.0.2.1", keyExchangePort: 4460, ntpHost: "192.0.2.7", ntpPort: 123, aead: 15,
            clientToServer: Array(repeating: 0x11, count: keyLength),
            serverToClient: Array(repeating: 0x22, count: 32),
            cookies: (0..<cookies).map { Array(repeating: UInt8($0), count: 100) })
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-nts-\(UUID().uuidString)/a.nts"
        ).path
    }

    @Test func whatIsSavedComesBackInTheSameBootUnderTheSameTrust() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: FileSystem.directoryName(of: path)) }
        let trust = NetworkClock.TrustRoots.certificateFile("/ca.pem")
        #expect(
            NTSCookieFile.save([Self.server: Self.saved()], to: path, bootID: "boot-1", trust: trust) == nil)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(NTSCookieFile.load(from: path, bootID: "boot-1", trust: trust) == [Self.server: Self.saved()])
        #expect(NTSCookieFile.load(from: path, bootID: "boot-2", trust: trust).isEmpty)
        #expect(NTSCookieFile.load(from: path, bootID: "boot-1", trust: .system).isEmpty)
        #expect(NTSCookieFile.load(from: path, bootID: nil, trust: trust).isEmpty)

        let sessions = NTSSessions()
        #expect(sessions.restore(NTSCookieFile.load(from: path, bootID: "boot-1", trust: trust)) == 1)
        let association = try #require(sessions.association(for: Self.server))
        #expect(association.cookieCount == 3)
        #expect(association.keys.ntpHost == "192.0.2.7")
        #expect(association.keys.keyExchangeAddress.description == "192.0.2.1:4460")
    }

    @Test func damagedOrOutOfRangeContentIsIgnored() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: FileSystem.directoryName(of: path)) }
        #expect(NTSCookieFile.load(from: path, bootID: "b", trust: .system).isEmpty)  // missing
        #expect(NTSCookieFile.save([Self.server: Self.saved()], to: path, bootID: "b", trust: .system) == nil)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for damaged in [
            "", "{", String(text.dropLast(20)),
            text.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"),
            text.replacingOccurrences(of: "\"c2s\":\"11", with: "\"c2s\":\"zz"),
        ] {
            try damaged.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(NTSSessions().restore(NTSCookieFile.load(from: path, bootID: "b", trust: .system)) == 0)
        }
        // Values out of range: a short key, no cookies, nine cookies, another AEAD.
        var otherAEAD = Self.saved()
        otherAEAD.aead = 16
        for bad in [Self.saved(keyLength: 16), Self.saved(cookies: 0), Self.saved(cookies: 9), otherAEAD] {
            #expect(NTSSessions().restore([Self.server: bad]) == 0)
        }
        // A plain server name is never given an association.
        #expect(NTSSessions().restore([ServerName(host: "time.example.com"): Self.saved()]) == 0)
    }
}
