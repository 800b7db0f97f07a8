#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import TimeValues

/// A Roughtime server list (an "ecosystem" file, RFC 10049 §8.3, in the JSON format Cloudflare
/// publishes and `roughly` reads). A server this client cannot use (an unknown version or key type,
/// a key that is not 32 bytes, no UDP address) is left out with its reason in ``skipped``, so that
/// one odd entry does not make a whole list unusable. The format: the CLIReference article,
/// "Roughtime"; the versions a list may name: the ThreatModel article, "Roughtime" ("Versions").
package struct RoughtimeEcosystem: Hashable, Sendable {
    /// A server left out, and why.
    package struct Skipped: Hashable, Sendable, CustomStringConvertible {
        /// The server's name (or its position, when it has none).
        package var name: String
        /// Why it was left out.
        package var reason: String

        /// `name: reason`.
        package var description: String { "\(name): \(reason)" }
    }

    /// The usable servers, in the file's order.
    package var servers: [RoughtimeServer]
    /// The servers left out.
    package var skipped: [Skipped]

    /// Parses a server list.
    /// - Throws: `invalid_ecosystem` when the bytes are not JSON with a `servers` list, or when no
    ///   server in it is usable (the reason lists why each was left out).
    package init(json: [UInt8]) throws(RoughtimeError) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch {
            throw RoughtimeError(
                .invalidEcosystem, "not a server list (a JSON object with \"servers\"): \(error)")
        }
        var servers: [RoughtimeServer] = []
        var skipped: [Skipped] = []
        for (index, entry) in file.servers.enumerated() {
            let name = entry.name ?? "server \(index + 1)"
            switch Self.server(entry, name: name) {
            case .success(let server): servers.append(server)
            case .failure(let reason): skipped.append(Skipped(name: name, reason: reason.reason))
            }
        }
        guard !servers.isEmpty else {
            let reasons =
                skipped.isEmpty ? "the list is empty" : skipped.map(\.description).joined(separator: "; ")
            throw RoughtimeError(.invalidEcosystem, "no usable server: \(reasons)")
        }
        self.servers = servers
        self.skipped = skipped
    }

    /// The versions a list's `version` value stands for.
    package static func versions(for value: VersionValue) -> [RoughtimeVersion]? {
        switch value {
        case .number(let number):
            let version = RoughtimeVersion(rawValue: number)
            return version.isSupported ? [version] : nil
        case .text(let text):
            switch text.lowercased() {
            case "ietf-roughtime": return RoughtimeVersion.defaultOffer
            case "google-roughtime": return [.google]
            default:
                return UInt32(text).flatMap { versions(for: .number($0)) }
            }
        }
    }

    private static func server(_ entry: Entry, name: String) -> Result<RoughtimeServer, RoughtimeError> {
        func skip(_ reason: String) -> Result<RoughtimeServer, RoughtimeError> {
            .failure(RoughtimeError(.invalidServer, reason))
        }
        guard let value = entry.version else { return skip("no version") }
        guard let versions = versions(for: value) else { return skip("version \(value) is not supported") }
        guard entry.publicKeyType?.lowercased() == "ed25519" else {
            return skip("public key type \(entry.publicKeyType ?? "(none)") is not ed25519")
        }
        guard let text = entry.publicKey, let key = Data(base64Encoded: text), key.count == 32 else {
            return skip("publicKey is not 32 bytes of base64")
        }
        var addresses: [String] = []
        for address in entry.addresses ?? [] where address.protocol?.lowercased() == "udp" {
            guard let text = address.address, (try? ServerName.parse(text).get()) != nil else {
                return skip("address \(address.address ?? "(none)") is not host:port")
            }
            addresses.append(text)
        }
        guard !addresses.isEmpty else { return skip("no udp address") }
        return .success(
            RoughtimeServer(name: name, addresses: addresses, publicKey: Array(key), versions: versions))
    }

    /// A `version` value: a number or a string.
    package enum VersionValue: Hashable, Sendable, Decodable, CustomStringConvertible {
        /// A version number.
        case number(UInt32)
        /// A version name (or a number written as a string).
        case text(String)

        /// Decodes a number or a string.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(UInt32.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        /// The number in hexadecimal, or the string.
        package var description: String {
            switch self {
            case .number(let number): return "0x" + String(number, radix: 16)
            case .text(let text): return "\"\(text)\""
            }
        }
    }

    /// The file's top level.
    private struct File: Decodable {
        var servers: [Entry]
    }

    /// One server entry; every field optional, so that one bad entry is skipped, not fatal.
    private struct Entry: Decodable {
        var name: String?
        var version: VersionValue?
        var publicKeyType: String?
        var publicKey: String?
        var addresses: [Address]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            name = try? container.decode(String.self, forKey: .name)
            version = try? container.decode(VersionValue.self, forKey: .version)
            publicKeyType = try? container.decode(String.self, forKey: .publicKeyType)
            publicKey = try? container.decode(String.self, forKey: .publicKey)
            addresses = try? container.decode([Address].self, forKey: .addresses)
        }

        private enum Keys: String, CodingKey { case name, version, publicKeyType, publicKey, addresses }
    }

    /// One address entry.
    private struct Address: Decodable {
        var `protocol`: String?
        var address: String?
    }
}
