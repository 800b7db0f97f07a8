import COpenSSL

/// Ed25519 signatures (RFC 8032, "pure" Ed25519 without pre-hashing) through OpenSSL's EVP
/// interface: verification for Roughtime's delegation and response signatures, and key generation
/// and signing for the loopback fake Roughtime server.
///
/// Verification never throws: a key OpenSSL will not load, a signature of the wrong length and a
/// signature that does not verify all answer `false`, so bytes from the network can only ever make
/// a check fail.
package enum Ed25519 {
    /// The length of a public key: 32 bytes.
    package static let publicKeyLength = 32
    /// The length of a private key (the seed of RFC 8032 §5.1.5): 32 bytes.
    package static let seedLength = 32
    /// The length of a signature: 64 bytes.
    package static let signatureLength = 64

    /// Whether `signature` is a valid Ed25519 signature of the concatenation of `parts` under
    /// `publicKey`.
    ///
    /// Roughtime signs a context string followed by a tag's value; passing them as two parts saves
    /// the caller a concatenation (Ed25519 itself needs the whole message at once, so they are
    /// joined here).
    package static func isValidSignature(
        _ signature: [UInt8], of parts: [UInt8]..., publicKey: [UInt8]
    ) -> Bool {
        guard signature.count == signatureLength, publicKey.count == publicKeyLength else { return false }
        let message = parts.count == 1 ? parts[0] : Array(parts.joined())
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        let key = publicKey.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
        }
        guard let key else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // Ed25519 takes no digest: the md argument is NULL.
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        let verified = signature.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                EVP_DigestVerify(
                    context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress,
                    messageBytes.count)
            }
        }
        return verified == 1
    }

    /// An Ed25519 private key, kept as its 32-byte seed, with the public key derived from it.
    package struct PrivateKey: Hashable, Sendable {
        /// The seed (RFC 8032 §5.1.5): the private key's bytes.
        package let seed: [UInt8]
        /// The public key the seed derives.
        package let publicKey: [UInt8]

        /// The key with `seed` (32 bytes).
        /// - Throws: ``Ed25519Error`` when the seed is not 32 bytes or OpenSSL fails.
        package init(seed: [UInt8]) throws(Ed25519Error) {
            guard seed.count == Ed25519.seedLength else {
                throw Ed25519Error(
                    reason: "an Ed25519 seed is \(Ed25519.seedLength) bytes, not \(seed.count)")
            }
            let key = try Self.load(seed)
            defer { EVP_PKEY_free(key) }
            var publicKey = [UInt8](repeating: 0, count: Ed25519.publicKeyLength)
            var length = publicKey.count
            guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1,
                length == Ed25519.publicKeyLength
            else {
                throw Ed25519Error(reason: OpenSSLErrorQueue.reason(or: "EVP_PKEY_get_raw_public_key failed"))
            }
            self.seed = seed
            self.publicKey = publicKey
        }

        /// A new key from 32 bytes of `generator` (the system CSPRNG by default), as RFC 8032
        /// §5.1.5 prescribes.
        package static func generate() throws(Ed25519Error) -> PrivateKey {
            var generator = SystemRandomNumberGenerator()
            return try generate(using: &generator)
        }

        /// A new key from 32 bytes of `generator`; tests pass a seeded one for fixed keys.
        package static func generate(using generator: inout some RandomNumberGenerator) throws(Ed25519Error)
            -> PrivateKey
        {
            var seed: [UInt8] = []
            while seed.count < Ed25519.seedLength {
                withUnsafeBytes(of: generator.next() as UInt64) { seed.append(contentsOf: $0) }
            }
            return try PrivateKey(seed: seed)
        }

        /// The signature of the concatenation of `parts`.
        /// - Throws: ``Ed25519Error`` only when OpenSSL fails (never because of the message).
        package func signature(of parts: [UInt8]...) throws(Ed25519Error) -> [UInt8] {
            let message = parts.count == 1 ? parts[0] : Array(parts.joined())
            let key = try Self.load(seed)
            defer { EVP_PKEY_free(key) }
            guard let context = EVP_MD_CTX_new() else {
                throw Ed25519Error(reason: OpenSSLErrorQueue.reason(or: "EVP_MD_CTX_new failed"))
            }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else {
                throw Ed25519Error(reason: OpenSSLErrorQueue.reason(or: "EVP_DigestSignInit failed"))
            }
            var signature = [UInt8](repeating: 0, count: Ed25519.signatureLength)
            var length = signature.count
            let signed = message.withUnsafeBufferPointer {
                EVP_DigestSign(context, &signature, &length, $0.baseAddress, $0.count)
            }
            guard signed == 1, length == Ed25519.signatureLength else {
                throw Ed25519Error(reason: OpenSSLErrorQueue.reason(or: "EVP_DigestSign failed"))
            }
            return signature
        }

        /// OpenSSL's key object for `seed`; the caller frees it.
        private static func load(_ seed: [UInt8]) throws(Ed25519Error) -> OpaquePointer {
            OpenSSLErrorQueue.clear()
            let key = seed.withUnsafeBufferPointer {
                EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
            }
            guard let key else {
                throw Ed25519Error(
                    reason: OpenSSLErrorQueue.reason(or: "EVP_PKEY_new_raw_private_key failed"))
            }
            return key
        }
    }
}

/// Ed25519 key handling or signing failed: a seed of the wrong length, or OpenSSL itself failed
/// (a broken installation or no memory).
package struct Ed25519Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package var reason: String

    /// `ed25519: reason`.
    package var description: String { "ed25519: \(reason)" }
}
