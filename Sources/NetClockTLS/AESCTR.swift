import COpenSSL

/// AES-128 in counter mode (the 128-bit big-endian counter RFC 5297 §2.5 uses) on OpenSSL's
/// `AES-128-CTR`, for the encryption step of ``AESSIV``.
///
/// The key is set once, when the instance is made; each message sets only its initial counter
/// block, so no message pays for a fetch, an allocation or a key schedule. One instance holds one
/// OpenSSL cipher context, freed with it; use it on one thread at a time.
final class AESCTR {
    /// The fetched cipher (`EVP_CIPHER`).
    private let cipher: OpaquePointer
    /// Its context (`EVP_CIPHER_CTX`), keyed once.
    private let context: OpaquePointer

    /// Counter mode keyed with `key`, which must be 16 bytes.
    init(key: [UInt8]) throws(AESSIVError) {
        OpenSSLErrorQueue.clear()
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil) else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CIPHER_fetch(AES-128-CTR) failed"))
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_free(cipher)
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CIPHER_CTX_new failed"))
        }
        self.cipher = cipher
        self.context = context
        guard key.count == 16, EVP_CIPHER_get_key_length(cipher) == 16 else {
            throw .cryptoFailure("AES-128-CTR takes 16-byte keys, not \(key.count)")
        }
        guard EVP_EncryptInit_ex2(context, cipher, key, nil, nil) == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_EncryptInit_ex2 failed"))
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        EVP_CIPHER_free(cipher)
    }

    /// Writes `input` exclusive-or the key stream from counter block `counter` to `output` (as many
    /// bytes as `input`, at most `Int32.max`): encryption and decryption alike. The caller empties
    /// the error queue first (once per AES-SIV message).
    func apply(counter: SIVBlock, _ input: UnsafeRawBufferPointer, to output: UnsafeMutableRawBufferPointer)
        throws(AESSIVError)
    {
        let started = counter.withUnsafeBytes { iv in
            EVP_EncryptInit_ex2(context, nil, nil, iv.baseAddress?.assumingMemoryBound(to: UInt8.self), nil)
        }
        guard started == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_EncryptInit_ex2 (counter) failed"))
        }
        var written: Int32 = 0
        guard input.count <= Int(Int32.max), output.count >= input.count,
            EVP_EncryptUpdate(
                context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written,
                input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1,
            written == Int32(input.count)
        else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_EncryptUpdate (CTR) failed"))
        }
    }
}
