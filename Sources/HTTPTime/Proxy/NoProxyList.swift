import NetClockPlatform

/// The hosts reached without the proxy, read from a `NO_PROXY` value as curl reads it.
///
/// A comma-separated list (spaces around entries ignored). `*` as the whole value matches every
/// host (among other entries it matches nothing, as in curl). An IP address matches that address
/// (compared as addresses, so `::1` and `0::1` are one); an address with `/bits` matches its CIDR
/// block. Any other entry is a name that matches itself and every name under it (`example.com` and
/// `.example.com` both match `example.com` and `www.example.com`, never `notexample.com`),
/// case-insensitively and ignoring a final dot. Nothing is resolved: a name never matches an
/// address entry.
package struct NoProxyList: Hashable, Sendable {
    private enum Entry: Hashable, Sendable {
        case everything
        case name(String)
        case block(bytes: [UInt8], bits: Int)
    }

    private let entries: [Entry]

    /// No host bypasses the proxy.
    package static let empty = NoProxyList(entries: [])

    private init(entries: [Entry]) { self.entries = entries }

    /// Reads a `NO_PROXY` value; entries it cannot read (an empty one, a bad prefix length) are
    /// skipped.
    package init(_ value: String) {
        guard value.trimmingWhitespace() != "*" else {
            self.entries = [.everything]
            return
        }
        var entries: [Entry] = []
        for raw in value.split(separator: ",") {
            let item = raw.trimmingWhitespace()
            if let block = Self.block(item) {
                entries.append(block)
            } else {
                let name = Self.normalized(item.hasPrefix(".") ? String(item.dropFirst()) : item)
                if !name.isEmpty && !name.contains("/") && name != "*" { entries.append(.name(name)) }
            }
        }
        self.entries = entries
    }

    /// Whether `host` (a name or an IP literal without brackets) is reached directly.
    package func bypasses(_ host: String) -> Bool {
        let name = Self.normalized(host)
        let address = SocketAddress(numericHost: name, port: 0)?.addressBytes
        return entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .name(let suffix):
                return address == nil && (name == suffix || name.hasSuffix("." + suffix))
            case .block(let bytes, let bits):
                guard let address, address.count == bytes.count else { return false }
                return Self.prefix(address, bits) == Self.prefix(bytes, bits)
            }
        }
    }

    /// An address entry (`192.0.2.1`, `::1`, `10.0.0.0/8`, `fd00::/8`), or nil.
    private static func block(_ item: String) -> Entry? {
        let parts = item.split(separator: "/", omittingEmptySubsequences: false)
        let text =
            parts[0].hasPrefix("[") && parts[0].hasSuffix("]") ? parts[0].dropFirst().dropLast() : parts[0]
        guard parts.count <= 2, let address = SocketAddress(numericHost: String(text), port: 0) else {
            return nil
        }
        let width = address.addressBytes.count * 8
        guard parts.count == 2 else { return .block(bytes: address.addressBytes, bits: width) }
        guard let bits = Int(parts[1]), (0...width).contains(bits) else { return nil }
        return .block(bytes: address.addressBytes, bits: bits)
    }

    /// The first `bits` bits of `bytes`, the rest zeroed.
    private static func prefix(_ bytes: [UInt8], _ bits: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, bits - index * 8))
            return kept == 0 ? 0 : byte & ~UInt8(truncatingIfNeeded: 0xFF >> kept)
        }
    }

    private static func normalized(_ name: String) -> String {
        let lower = name.lowercased()
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }
}
