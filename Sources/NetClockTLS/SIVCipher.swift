import COpenSSL

/// One use of OpenSSL's `AES-128-SIV` cipher (32-byte key) for a non-empty message: associated
/// data, then the text, then the tag. The cipher and its context are freed with the instance.
final class SIVCipher {
    /// The fetched `AES-128-SIV` cipher (`EVP_CIPHER`).
    private let cipher: OpaquePointer
    /// Its context (`EVP_CIPHER_CTX`).
    private let context: OpaquePointer
    /// Whether the context encrypts (or decrypts).
    private let isEncrypting: Bool

    /// A context keyed with `key` (32 bytes, checked by the caller), encrypting or decrypting.
    init(key: [UInt8], encrypting: Bool) throws(AESSIVError) {
        OpenSSLErrorQueue.clear()
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-128-SIV", nil) else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CIPHER_fetch(AES-128-SIV) failed"))
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_free(cipher)
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CIPHER_CTX_new failed"))
        }
        self.cipher = cipher
        self.context = context
        self.isEncrypting = encrypting
        guard EVP_CIPHER_get_key_length(cipher) == Int32(key.count) else {
            throw .cryptoFailure("AES-128-SIV takes \(EVP_CIPHER_get_key_length(cipher))-byte keys")
        }
        guard EVP_CipherInit_ex2(context, cipher, key, nil, encrypting ? 1 : 0, nil) == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CipherInit_ex2 failed"))
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
        EVP_CIPHER_free(cipher)
    }

    /// Adds each item as one associated-data string (one `EVP_CipherUpdate` with no output).
    func addAssociatedData(_ items: [[UInt8]]) throws(AESSIVError) {
        for item in items {
            var written: Int32 = 0
            guard EVP_CipherUpdate(context, nil, &written, item, Int32(item.count)) == 1 else {
                throw .cryptoFailure(
                    OpenSSLErrorQueue.reason(or: "EVP_CipherUpdate (associated data) failed"))
            }
        }
    }

    /// Encrypts or decrypts `text` (non-empty) in one call.
    func process(_ text: [UInt8]) throws(AESSIVError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: text.count + AESSIV.tagLength)
        var written: Int32 = 0
        let succeeded = EVP_CipherUpdate(context, &output, &written, text, Int32(text.count)) == 1
        guard succeeded else {
            // Decrypting: a wrong tag fails here, as OpenSSL checks it when the text is processed.
            if !isEncrypting {
                OpenSSLErrorQueue.clear()
                throw .authenticationFailed
            }
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CipherUpdate failed"))
        }
        return Array(output.prefix(Int(written)))
    }

    /// Finishes encrypting and returns the 16-byte tag.
    func finishEncrypting() throws(AESSIVError) -> [UInt8] {
        var spare = [UInt8](repeating: 0, count: AESSIV.tagLength)
        var written: Int32 = 0
        guard EVP_CipherFinal_ex(context, &spare, &written) == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CipherFinal_ex failed"))
        }
        var tag = [UInt8](repeating: 0, count: AESSIV.tagLength)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tag.count), &tag) == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CTRL_AEAD_GET_TAG failed"))
        }
        return tag
    }

    /// Sets the tag a decryption must match (before any data).
    func setExpectedTag(_ tag: [UInt8]) throws(AESSIVError) {
        var tag = tag
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), &tag) == 1 else {
            throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_CTRL_AEAD_SET_TAG failed"))
        }
    }

    /// Finishes decrypting; fails when the tag did not match.
    func finishDecrypting() throws(AESSIVError) {
        var spare = [UInt8](repeating: 0, count: AESSIV.tagLength)
        var written: Int32 = 0
        guard EVP_CipherFinal_ex(context, &spare, &written) == 1 else {
            OpenSSLErrorQueue.clear()
            throw .authenticationFailed
        }
    }
}
