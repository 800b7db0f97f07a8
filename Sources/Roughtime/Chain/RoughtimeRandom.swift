/// Where nonces and the `rand` values that chain them come from.
///
/// Nonces must be unpredictable (RFC 10049 §5.1.2): a server that could predict one could sign a
/// time before the request was made. Production uses ``SystemRoughtimeRandom``; tests inject a
/// seeded source to get fixed requests.
package protocol RoughtimeRandomSource: Sendable {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

/// Random bytes from the kernel's CSPRNG (`getrandom(2)`, through `SystemRandomNumberGenerator`).
package struct SystemRoughtimeRandom: RoughtimeRandomSource {
    /// A reader of the system CSPRNG.
    package init() {}

    /// `count` fresh random bytes.
    package func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return Self.bytes(count, using: &generator)
    }

    /// `count` bytes drawn from `generator`.
    package static func bytes(_ count: Int, using generator: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
