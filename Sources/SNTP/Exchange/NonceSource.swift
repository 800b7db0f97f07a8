/// Where request nonces come from. The transmit timestamp of every request is a fresh random 64-bit
/// value; a reply is accepted only if it echoes it, so an off-path attacker must guess 64 bits.
package protocol NonceSource: Sendable {
    /// A new nonce; never zero.
    func nextNonce() -> NTPTimestamp
}

/// Nonces from the operating system's CSPRNG (`getrandom(2)` on Linux, through
/// `SystemRandomNumberGenerator`).
package struct SystemNonceSource: NonceSource {
    /// Creates a nonce source backed by the system CSPRNG.
    package init() {}

    /// A fresh non-zero random nonce.
    package func nextNonce() -> NTPTimestamp {
        var generator = SystemRandomNumberGenerator()
        return Self.nonce(using: &generator)
    }

    /// A non-zero random nonce drawn from `generator`; tests pass a seeded generator.
    package static func nonce(using generator: inout some RandomNumberGenerator) -> NTPTimestamp {
        while true {
            let value = generator.next()
            if value != 0 { return NTPTimestamp(rawValue: value) }
        }
    }
}
