#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NTSClient
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// The NTS associations (keys and unused cookies) kept beside the anchor file, in `<anchor>.nts`, so
/// that a later process in the same boot spends the cookies instead of running a new key exchange.
///
/// The file is taken (removed) when loaded, before any cookie is used, so no cookie is sent twice.
/// It is trusted only in its boot and under the same trust roots
/// (``NetworkClock/TrustRoots/fingerprint(environment:)``); anything else is discarded with a
/// reason. The format and the checks: the StateFiles article.
package enum NTSCookieFile {
    /// The format version written and accepted.
    static let version = 2
    /// The largest file read: 64 associations of 8 cookies of up to 1 KiB each, hex-encoded, fit.
    static let maximumFileSize = 1 << 21
    /// The most associations kept.
    static let maximumAssociations = 64

    /// What a file is bound to: it is used only where all of it is equal.
    package struct Binding: Hashable, Sendable {
        /// The boot identity (`/proc/sys/kernel/random/boot_id`).
        package var bootID: String
        /// The trust roots' description, for people reading the file; not compared.
        package var trust: String
        /// The SHA-256 (hex) of the trust roots' contents.
        package var trustSHA256: String

        /// Creates a binding from its parts.
        package init(bootID: String, trust: String, trustSHA256: String) {
            self.bootID = bootID
            self.trust = trust
            self.trustSHA256 = trustSHA256
        }

        /// The binding of `store`'s boot under `trust`, or why none can be made (then no file is
        /// taken or kept). Reads the CA file or bundle once: compute it before any key exchange,
        /// and keep it for the save after.
        package static func current(
            for store: AnchorStore, trust: NetworkClock.TrustRoots,
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> Result<Binding, AnchorStoreError> {
            let path = store.ntsCookiePath
            guard let bootID = store.currentBootID else {
                return .failure(
                    AnchorStoreError(
                        code: .bootIDUnavailable,
                        reason: "cannot read the boot identity from \(AnchorStore.bootIDPath)", path: path))
            }
            switch trust.fingerprint(environment: environment) {
            case .success(let digest):
                return .success(Binding(bootID: bootID, trust: trust.description, trustSHA256: digest))
            case .failure(let error):
                return .failure(
                    AnchorStoreError(
                        code: .unreadable, reason: "cannot bind NTS cookies to the \(trust): \(error.reason)",
                        path: path))
            }
        }
    }

    /// Where the file for the anchor at `anchorPath` lives.
    package static func path(besideAnchor anchorPath: String) -> String { anchorPath + ".nts" }

    /// Takes the file at `path` (it is gone from its directory when this returns, unless it was
    /// refused for what it is) and returns the associations it kept for `binding`, or why there
    /// are none: ``AnchorStoreError/Code/missing`` when there was no file, an unsafe-file code
    /// (``AnchorStoreError/isUnsafeFile``, the file left untouched and unread), or the reason
    /// it was discarded.
    package static func take(from path: String, binding: Binding)
        -> Result<[ServerName: NTSAssociation.Saved], AnchorStoreError>
    {
        func failure(_ code: AnchorStoreError.Code, _ reason: String)
            -> Result<[ServerName: NTSAssociation.Saved], AnchorStoreError>
        {
            .failure(AnchorStoreError(code: code, reason: reason, path: path))
        }
        let bytes: [UInt8]
        switch FileSystem.takePrivateFile(atPath: path, limit: maximumFileSize) {
        case .success(nil): return failure(.missing, "no NTS cookies are kept")
        case .success(let taken?): bytes = taken
        case .failure(.failed(let error)) where error.code == .fileTooLarge:
            return failure(.corrupt, "the NTS cookie file is larger than \(maximumFileSize) bytes")
        case .failure(let error): return .failure(AnchorStoreError(error, file: path, failed: .unreadable))
        }
        let decoder = JSONDecoder()
        guard let probe = try? decoder.decode(AnchorFile.VersionProbe.self, from: Data(bytes)) else {
            return failure(.corrupt, "the NTS cookie file is not valid JSON")
        }
        guard let fileVersion = probe.version else {
            return failure(.corrupt, "the NTS cookie file has no version")
        }
        guard fileVersion == version else {
            let detail =
                fileVersion == 1
                ? "format version 1, bound to the CA file's path rather than its contents"
                : "format version \(fileVersion)"
            return failure(
                .unsupportedVersion, "the NTS cookie file has \(detail); this build reads \(version)")
        }
        guard let file = try? decoder.decode(Contents.self, from: Data(bytes)) else {
            return failure(.corrupt, "the NTS cookie file lacks a field or has one of the wrong type")
        }
        guard file.bootID == binding.bootID else {
            return failure(.differentBoot, "the NTS cookies were kept before a reboot")
        }
        guard file.trustSHA256 == binding.trustSHA256 else {
            return failure(
                .differentTrustRoots,
                "the NTS cookies were kept under other trust roots (\(file.trust.prefix(200))), or the CA"
                    + " certificates changed since")
        }
        var saved: [ServerName: NTSAssociation.Saved] = [:]
        for entry in file.associations.prefix(maximumAssociations) {
            guard let value = entry.saved else { continue }
            saved[.nts(entry.host, port: entry.port)] = value
        }
        return .success(saved)
    }

    /// Writes `saved` to `path` for `binding`, replacing what is there; writes nothing when there
    /// is nothing to keep (a file another process kept meanwhile stays).
    /// - Returns: why the file could not be written.
    @discardableResult
    package static func save(
        _ saved: [ServerName: NTSAssociation.Saved], to path: String, binding: Binding
    ) -> AnchorStoreError? {
        guard !saved.isEmpty else { return nil }
        let entries = saved.sorted { $0.key.description < $1.key.description }.prefix(maximumAssociations).map
        {
            Entry(server: $0.key, saved: $0.value)
        }
        let contents = Contents(
            version: version, bootID: binding.bootID, trust: binding.trust, trustSHA256: binding.trustSHA256,
            associations: entries)
        guard let data = try? JSONEncoder().encode(contents) else {
            return AnchorStoreError(
                code: .writeFailed, reason: "cannot encode the NTS associations", path: path)
        }
        return FileSystem.writePrivateFile(Array(data) + [0x0A], toPath: path).map {
            AnchorStoreError($0, file: path, failed: .writeFailed)
        }
    }

    /// The file's top level.
    struct Contents: Codable {
        var version: Int
        var bootID: String
        var trust: String
        var trustSHA256: String
        var associations: [Entry]

        enum CodingKeys: String, CodingKey {
            case version, trust, associations
            case bootID = "boot_id"
            case trustSHA256 = "trust_sha256"
        }
    }

    /// One association.
    struct Entry: Codable {
        var host: String
        var port: UInt16?
        var keHost: String
        var kePort: UInt16
        var ntpHost: String
        var ntpPort: UInt16
        var aead: UInt16
        var c2s: String
        var s2c: String
        var cookies: [String]
        /// Whether the key exchange checked no certificate time (a cold start).
        var bootstrapped: Bool?
        /// The verified chain's validity periods, leaf first: `[notBefore, notAfter]` seconds.
        var chain: [[Int64]]?

        enum CodingKeys: String, CodingKey {
            case host, port, aead, c2s, s2c, cookies, bootstrapped, chain
            case keHost = "ke_host"
            case kePort = "ke_port"
            case ntpHost = "ntp_host"
            case ntpPort = "ntp_port"
        }

        init(server: ServerName, saved: NTSAssociation.Saved) {
            host = server.host
            port = server.port
            keHost = saved.keyExchangeHost
            kePort = saved.keyExchangePort
            ntpHost = saved.ntpHost
            ntpPort = saved.ntpPort
            aead = saved.aead
            c2s = Hex.encode(saved.clientToServer)
            s2c = Hex.encode(saved.serverToClient)
            cookies = saved.cookies.map(Hex.encode)
            bootstrapped = saved.isBootstrapped ? true : nil
            chain =
                saved.certificateChain.isEmpty
                ? nil : saved.certificateChain.map { [$0.notBefore, $0.notAfter] }
        }

        /// The association, when every hex string decodes (ranges are checked on restoring).
        var saved: NTSAssociation.Saved? {
            guard let c2sBytes = Hex.decode(c2s), let s2cBytes = Hex.decode(s2c), cookies.count <= 16 else {
                return nil
            }
            let cookieBytes = cookies.compactMap(Hex.decode)
            guard cookieBytes.count == cookies.count else { return nil }
            var saved = NTSAssociation.Saved(
                keyExchangeHost: keHost, keyExchangePort: kePort, ntpHost: ntpHost, ntpPort: ntpPort,
                aead: aead,
                clientToServer: c2sBytes, serverToClient: s2cBytes, cookies: cookieBytes)
            let periods = chain ?? []
            guard periods.count <= 16, periods.allSatisfy({ $0.count == 2 }) else { return nil }
            saved.isBootstrapped = bootstrapped ?? false
            saved.certificateChain = periods.map {
                CertificateValidity(notBefore: $0[0], notAfter: $0[1], subject: "")
            }
            return saved
        }
    }

    /// Lower-case hexadecimal.
    enum Hex {
        static func encode(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789abcdef".utf8)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0f)])
            }
            return String(decoding: out, as: UTF8.self)
        }

        static func decode(_ text: String) -> [UInt8]? {
            let utf8 = Array(text.utf8)
            guard utf8.count % 2 == 0, utf8.count <= 4096 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count / 2)
            var index = 0
            while index < utf8.count {
                guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }

        private static func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: return digit - 0x30
            case 0x61...0x66: return digit - 0x61 + 10
            case 0x41...0x46: return digit - 0x41 + 10
            default: return nil
            }
        }
    }
}
