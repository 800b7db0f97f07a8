import Foundation
import LoopbackServers
import NTSClient
import NetClockPlatform
import SNTP
import NetClockTestSupport
import Testing
import TimeValues

@testable import NetworkClock
import WallClockReference

/// The NTS keys and cookies kept beside the anchor: taken (removed) when loaded, used only in the
/// same boot under trust roots with the same contents, and anything damaged, old or foreign costs
/// a key exchange with a reason, never a crash.
@Suite(.wallClockReference)
struct NTSCookieFileTests {
    static let server = ServerName.nts("time.example.com")

    static func saved(cookies: Int = 3, keyLength: Int = 32) -> NTSAssociation.Saved {
        NTSAssociation.Saved(
            keyExchangeHost: "192.0.2.1", keyExchangePort: 4460, ntpHost: "192.0.2.7", ntpPort: 123, aead: 15,
            clientToServer: Array(repeating: 0x11, count: keyLength),
            serverToClient: Array(repeating: 0x22, count: 32),
            cookies: (0..<cookies).map { Array(repeating: UInt8($0), count: 100) })
    }

    static func binding(boot: String = "boot-1", digest: String = String(repeating: "ab", count: 32))
        -> NTSCookieFile.Binding
    {
        NTSCookieFile.Binding(bootID: boot, trust: "CA file /ca.pem", trustSHA256: digest)
    }

    static func take(_ path: String, _ binding: NTSCookieFile.Binding = binding())
        -> Result<[ServerName: NTSAssociation.Saved], AnchorStoreError>
    {
        NTSCookieFile.take(from: path, binding: binding)
    }

    @Test func whatIsSavedComesBackOnceInTheSameBootUnderTheSameTrust() throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/a.nts"
            #expect(NTSCookieFile.save([Self.server: Self.saved()], to: path, binding: Self.binding()) == nil)
            #expect(try permissions(of: path) == 0o600)
            #expect(try Self.take(path).get() == [Self.server: Self.saved()])
            // Taken: the file is gone, and a second load (another process) finds nothing.
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(Self.take(path).failureCode == .missing)

            for (other, code) in [
                (Self.binding(boot: "boot-2"), AnchorStoreError.Code.differentBoot),
                (Self.binding(digest: String(repeating: "cd", count: 32)), .differentTrustRoots),
            ] {
                #expect(
                    NTSCookieFile.save([Self.server: Self.saved()], to: path, binding: Self.binding()) == nil)
                let error = try #require(Self.take(path, other).failure)
                #expect(error.code == code, "\(error)")
                #expect(error.path == path)
                // Discarded files are consumed too: their cookies are never offered again.
                #expect(!FileManager.default.fileExists(atPath: path))
            }

            #expect(NTSCookieFile.save([Self.server: Self.saved()], to: path, binding: Self.binding()) == nil)
            let sessions = NTSSessions()
            #expect(
                sessions.restore(from: AnchorStore(path: String(path.dropLast(4))), binding: Self.binding())
                    .value == 1)
            let association = try #require(sessions.association(for: Self.server))
            #expect(association.cookieCount == 3)
            #expect(association.keys.ntpHost == "192.0.2.7")
            #expect(association.keys.keyExchangeAddress.description == "192.0.2.1:4460")
            // Handing over empties the sessions: no cookie is both held here and in the file.
            let handed = sessions.handOverAssociations()
            #expect(handed[Self.server]?.cookies.count == 3)
            #expect(sessions.association(for: Self.server) == nil)
            #expect(association.cookieCount == 0)
            #expect(sessions.handOverAssociations().isEmpty)
            // Nothing to keep writes nothing: a file another process kept meanwhile stays.
            #expect(
                NTSCookieFile.save([Self.server: Self.saved(cookies: 2)], to: path, binding: Self.binding())
                    == nil)
            #expect(NTSCookieFile.save([:], to: path, binding: Self.binding()) == nil)
            #expect(try Self.take(path).get()[Self.server]?.cookies.count == 2)
        }
    }

    @Test func damagedOldOrOutOfRangeContentIsDiscardedWithAReason() throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/a.nts"
            #expect(NTSCookieFile.save([Self.server: Self.saved()], to: path, binding: Self.binding()) == nil)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("\"version\":2") && text.contains("\"trust_sha256\":\"abab"))
            let version1 = """
                {"version":1,"boot_id":"boot-1","trust":"CA file /ca.pem","associations":[]}
                """
            for (damaged, code) in [
                ("", AnchorStoreError.Code.corrupt), ("{", .corrupt), (String(text.dropLast(20)), .corrupt),
                (version1, .unsupportedVersion),
                (text.replacingOccurrences(of: "\"version\":2", with: "\"version\":3"), .unsupportedVersion),
                (text.replacingOccurrences(of: "\"trust_sha256\"", with: "\"trust_sha\""), .corrupt),
            ] {
                try writeFile(damaged, to: path)
                let error = try #require(Self.take(path).failure, "\(damaged.prefix(40))")
                #expect(error.code == code, "\(damaged.prefix(40)): \(error)")
                #expect(!FileManager.default.fileExists(atPath: path))
            }
            try writeFile(version1, to: path)
            #expect(Self.take(path).failure?.reason.contains("format version 1") == true)
            // A cookie that is not hex: that association is dropped, the file is still taken.
            try writeFile(text.replacingOccurrences(of: "\"c2s\":\"11", with: "\"c2s\":\"zz"), to: path)
            #expect(try Self.take(path).get().isEmpty)
            // Values out of range: a short key, no cookies, nine cookies, another AEAD.
            var otherAEAD = Self.saved()
            otherAEAD.aead = 16
            for bad in [Self.saved(keyLength: 16), Self.saved(cookies: 0), Self.saved(cookies: 9), otherAEAD]
            {
                #expect(NTSSessions().restore([Self.server: bad]) == 0)
            }
            // A plain server name is never given an association.
            #expect(NTSSessions().restore([ServerName(host: "time.example.com"): Self.saved()]) == 0)
        }
    }

    @Test(
        "a hostile cookie file is refused, left as it is, and never replaced by a save",
        arguments: HostileStateFile.withoutRoot)
    func hostileFiles(kind: HostileStateFile) throws {
        try inTemporaryDirectory { directory in
            let path = directory + "/a.nts"
            try kind.make(at: path, contents: "{}")
            let error = try #require(Self.take(path).failure)
            #expect(error.code.rawValue == kind.code && error.isUnsafeFile)
            #expect(error.reason.hasPrefix(path + " " + kind.reasonWords), "\(error.reason)")
            #expect(kind.isIntact(at: path, contents: "{}"))
            let saveError = NTSCookieFile.save([Self.server: Self.saved()], to: path, binding: Self.binding())
            #expect((saveError == nil) == kind.isReplaceable, "\(String(describing: saveError))")
        }
    }

    @Test func theBindingFollowsTheCAFileContentsNotItsPath() throws {
        try inTemporaryDirectory { directory in
            let ca = directory + "/ca.pem"
            try writeFile("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", to: ca)
            let trust = NetworkClock.TrustRoots.certificateFile(ca)
            let first = try trust.fingerprint().get()
            #expect(try first.count == 64 && first == trust.fingerprint().get())
            // The same contents at another path: the same trust.
            let moved = directory + "/moved.pem"
            try FileManager.default.copyItem(atPath: ca, toPath: moved)
            #expect(try NetworkClock.TrustRoots.certificateFile(moved).fingerprint().get() == first)
            // Other contents at the same path: other trust.
            try writeFile("-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n", to: ca)
            #expect(try trust.fingerprint().get() != first)
            // An unreadable CA file binds nothing.
            #expect(
                NetworkClock.TrustRoots.certificateFile(directory + "/none.pem").fingerprint().failure != nil)
            // The system store: OpenSSL's bundle as SSL_CERT_FILE selects it.
            let system = try NetworkClock.TrustRoots.system.fingerprint(environment: ["SSL_CERT_FILE": ca])
                .get()
            let elsewhere = try NetworkClock.TrustRoots.system.fingerprint(environment: [
                "SSL_CERT_FILE": moved
            ]).get()
            #expect(system != elsewhere && system != first)
            #expect(try NetworkClock.TrustRoots.system.fingerprint(environment: [:]).get().count == 64)
        }
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The value, if this is a success.
    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
