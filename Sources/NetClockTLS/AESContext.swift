import COpenSSL

/// One OpenSSL AES-128 context (`EVP_CIPHER_CTX`) keyed once, padding off, from a zero IV where
/// the mode has one: the blocks ``AESCMAC`` (CBC) and ``AESCTR`` (ECB) encrypt, each message
/// costing only `EVP_EncryptUpdate` calls, never a fetch, an allocation or a key schedule.
///
/// Freed with the instance; use it on one thread at a time.
final class AESContext {
    /// The fetched cipher (`EVP_CIPHER`).
    private let cipher: OpaquePointer
    /// Its context, keyed.
    private let context: OpaquePointer

    /// AES-128 in `mode` (`CBC`, `ECB`) keyed with `key`, which must be 16 bytes.
    init(mode: String, key: [UInt8]) throws(AESSIVError) {
        let name = "AES-128-\(mode)"
        OpenSSLErrorQueue.clear()
        guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CIPHER_fetch(\(name)) failed"))
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_free(cipher)
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CIPHER_CTX_new failed"))
        }
        self.cipher = cipher
        self.context = context
        guard key.count == 16, EVP_CIPHER_get_key_length(cipher) == 16 else {
            throw .cryptoFailure("\(name) takes 16-byte keys, not \(key.count)")
        }
        let iv = EVP_CIPHER_get_iv_length(cipher) > 0 ? Self.zeroIV : nil
        guard EVP_EncryptInit_ex2(context, cipher, key, iv, nil) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_EncryptInit_ex2 (\(name)) failed"))
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        EVP_CIPHER_free(cipher)
    }

    /// Encrypts the `count` bytes at `input` (a multiple of 16) to `output`, which may be the same
    /// place; false when OpenSSL did not encrypt them all.
    func encrypt(_ input: UnsafeRawPointer?, to output: UnsafeMutableRawPointer?, count: Int) -> Bool {
        var written: Int32 = 0
        return EVP_EncryptUpdate(
            context, output?.assumingMemoryBound(to: UInt8.self), &written,
            input?.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 && written == Int32(count)
    }

    /// Starts the chain from the zero IV again (CBC, after a failure left it unknown); false when
    /// OpenSSL could not.
    func restartFromZeroIV() -> Bool {
        EVP_EncryptInit_ex2(context, nil, nil, Self.zeroIV, nil) == 1
    }

    /// Sixteen zero bytes.
    private static let zeroIV = [UInt8](repeating: 0, count: 16)
}
