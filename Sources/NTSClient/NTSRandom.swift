/// Fresh random bytes from the kernel's CSPRNG (`getrandom(2)`, through
/// `SystemRandomNumberGenerator`): Unique Identifiers and authenticator nonces.
package enum NTSRandom {
    /// `count` random bytes.
    package static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
