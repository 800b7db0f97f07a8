import Foundation
import NTSClient
import NetClockPlatform
import SNTP

/// The NTS associations (keys and unused cookies) kept beside the anchor file, so that a later
/// process in the same boot spends the cookies instead of running a new NTS key exchange.
///
/// The file (`<anchor>.nts`, mode 0600 in the anchor's 0700 directory, replaced atomically) is
/// trusted only in the boot it was written in and under the same trust roots; anything stale,
/// foreign, corrupt or out of range is ignored, which costs one key exchange and nothing else.
///
/// ```json
/// { "version": 1, "boot_id": "…", "trust": "system trust store",
///   "associations": [ { "host": "time.example.com", "port": 4460, "ke_host": "192.0.2.1",
///     "ke_port": 4460, "ntp_host": "192.0.2.1", "ntp_port": 123, "aead": 15,
///     "c2s": "hex", "s2c": "hex", "cookies": ["hex", …] } ] }
/// ```
package enum NTSCookieFile {
    /// The format version written and accepted.
    static let version = 1
    /// The largest file read: 64 associations of 8 cookies of up to 1 KiB each, hex-encoded, fit.
    static let maximumFileSize = 1 << 21
    /// The most associations kept.
    static let maximumAssociations = 64

    /// Where the file for the anchor at `anchorPath` lives.
    package static func path(besideAnchor anchorPath: String) -> String { anchorPath + ".nts" }

    /// The associations kept at `path` for this boot and these trust roots; empty when there are
    /// none or the file is stale, foreign or damaged.
    package static func load(from path: String, bootID: String?, trust: NetworkClock.TrustRoots)
        -> [ServerName: NTSAssociation.Saved]
    {
        guard let bootID,
            case .success(let bytes) = FileSystem.readFile(atPath: path, limit: maximumFileSize),
            let file = try? JSONDecoder().decode(Contents.self, from: Data(bytes)),
            file.version == version, file.bootID == bootID, file.trust == trust.description
        else { return [:] }
        var saved: [ServerName: NTSAssociation.Saved] = [:]
        for entry in file.associations.prefix(maximumAssociations) {
            guard let value = entry.saved else { continue }
            saved[.nts(entry.host, port: entry.port)] = value
        }
        return saved
    }

    /// Replaces the file at `path` with `saved` (removes it when there is nothing to keep).
    /// - Returns: a reason when the file could not be written.
    @discardableResult
    package static func save(
        _ saved: [ServerName: NTSAssociation.Saved], to path: String, bootID: String?,
        trust: NetworkClock.TrustRoots
    ) -> String? {
        guard let bootID else { return "cannot read the boot identity" }
        let entries = saved.sorted { $0.key.description < $1.key.description }.prefix(maximumAssociations).map
        {
            Entry(server: $0.key, saved: $0.value)
        }
        let contents = Contents(
            version: version, bootID: bootID, trust: trust.description, associations: entries)
        guard let data = try? JSONEncoder().encode(contents) else {
            return "cannot encode the NTS associations"
        }
        if let failure = FileSystem.createDirectories(atPath: FileSystem.directoryName(of: path), mode: 0o700)
        {
            return failure.reason
        }
        return FileSystem.writeAtomically(Array(data) + [0x0A], toPath: path, mode: 0o600)?.reason
    }

    /// The file's top level.
    struct Contents: Codable {
        var version: Int
        var bootID: String
        var trust: String
        var associations: [Entry]

        enum CodingKeys: String, CodingKey {
            case version, trust, associations
            case bootID = "boot_id"
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

        enum CodingKeys: String, CodingKey {
            case host, port, aead, c2s, s2c, cookies
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
        }

        /// The association, when every hex string decodes (ranges are checked on restoring).
        var saved: NTSAssociation.Saved? {
            guard let c2sBytes = Hex.decode(c2s), let s2cBytes = Hex.decode(s2c), cookies.count <= 16 else {
                return nil
            }
            let cookieBytes = cookies.compactMap(Hex.decode)
            guard cookieBytes.count == cookies.count else { return nil }
            return NTSAssociation.Saved(
                keyExchangeHost: keHost, keyExchangePort: kePort, ntpHost: ntpHost, ntpPort: ntpPort,
                aead: aead,
                clientToServer: c2sBytes, serverToClient: s2cBytes, cookies: cookieBytes)
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
