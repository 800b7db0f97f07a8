/// A Roughtime server to ask for signed time: its name, where it listens, the long-term Ed25519
/// public key that must sign its answers, and the versions to offer it.
///
/// The key is the root of trust: it does not expire and needs no correct clock to check, which is
/// what lets Roughtime bootstrap a machine whose clock is wrong. Servers usually come from a server
/// list (an ecosystem file such as Cloudflare publishes); one can also be written out:
///
/// ```swift
/// // longTermKey: the server's 32-byte Ed25519 public key, as its operator publishes it.
/// let server = RoughtimeServer(name: "example", address: "roughtime.example.com:2002", publicKey: longTermKey)
/// ```
public struct RoughtimeServer: Hashable, Sendable, CustomStringConvertible {
    /// The port RFC 10049 assigns to Roughtime, used when an address names none.
    public static let defaultPort: UInt16 = 5319

    /// A name for people (reports name liars by it).
    public var name: String
    /// Where the server listens over UDP, tried in order: `host:port`, `[v6addr]:port`, or a host
    /// alone (port ``defaultPort``).
    public var addresses: [String]
    /// The long-term Ed25519 public key (32 bytes).
    public var publicKey: [UInt8]
    /// The versions to offer (the request's `VER`); Google-Roughtime must be offered alone.
    /// Default ``RoughtimeVersion/defaultOffer``.
    public var versions: [RoughtimeVersion]

    /// A server listening at `addresses`.
    public init(
        name: String, addresses: [String], publicKey: [UInt8],
        versions: [RoughtimeVersion] = RoughtimeVersion.defaultOffer
    ) {
        self.name = name
        self.addresses = addresses
        self.publicKey = publicKey
        self.versions = versions
    }

    /// A server listening at one `address`.
    public init(
        name: String, address: String, publicKey: [UInt8],
        versions: [RoughtimeVersion] = RoughtimeVersion.defaultOffer
    ) {
        self.init(name: name, addresses: [address], publicKey: publicKey, versions: versions)
    }

    /// The name and the first address, e.g. `example (roughtime.example.com:2002)`.
    public var description: String {
        addresses.first.map { "\(name) (\($0))" } ?? name
    }
}
