import COpenSSL

/// AES-SIV-CMAC-256 (RFC 5297; AEAD algorithm 15 of RFC 8915): deterministic authenticated
/// encryption with a 32-byte key, its 16-byte synthetic IV (the tag) first in the ciphertext.
///
/// The nonce, when there is one, is the **last** associated-data item, as RFC 5297 §3 and NTS
/// (RFC 8915 §5.6) use it. A non-empty plaintext goes through OpenSSL's `AES-128-SIV` cipher, one
/// `EVP_EncryptUpdate` per associated-data item; an empty one (the usual NTS request) is tagged by
/// ``S2V`` on OpenSSL's CMAC, because OpenSSL 3.0's SIV mode produces no tag for it.
package enum AESSIV {
    /// The key length: 32 bytes (the first half keys S2V, the second half CTR mode).
    package static let keyLength = 32
    /// The length of the synthetic IV that starts every ciphertext.
    package static let tagLength = 16
    /// The most associated-data items RFC 5297 allows (126, nonce included; S2V takes 127 strings).
    package static let maximumAssociatedDataItems = 126

    /// Encrypts `plaintext` with `nonce` as the last associated-data item, after `associatedData`.
    /// - Returns: the 16-byte tag followed by as many bytes of ciphertext as `plaintext` has.
    package static func seal(key: [UInt8], nonce: [UInt8], associatedData: [[UInt8]], plaintext: [UInt8])
        throws(AESSIVError) -> [UInt8]
    {
        try seal(key: key, associatedData: associatedData + [nonce], plaintext: plaintext)
    }

    /// Decrypts and verifies what ``seal(key:nonce:associatedData:plaintext:)`` made.
    /// - Throws: ``AESSIVError/authenticationFailed`` when any bit of the key, nonce, associated
    ///   data, tag or ciphertext differs.
    package static func open(key: [UInt8], nonce: [UInt8], associatedData: [[UInt8]], ciphertext: [UInt8])
        throws(AESSIVError) -> [UInt8]
    {
        try open(key: key, associatedData: associatedData + [nonce], ciphertext: ciphertext)
    }

    /// Encrypts `plaintext` under RFC 5297's general form: the associated-data items in order (a
    /// nonce, if any, already the last of them).
    package static func seal(key: [UInt8], associatedData: [[UInt8]], plaintext: [UInt8]) throws(AESSIVError)
        -> [UInt8]
    {
        try validate(key: key, associatedData: associatedData)
        if plaintext.isEmpty {
            return try S2V.vector(macKey: Array(key.prefix(16)), components: associatedData, plaintext: [])
        }
        let cipher = try SIVCipher(key: key, encrypting: true)
        try cipher.addAssociatedData(associatedData)
        let body = try cipher.process(plaintext)
        let tag = try cipher.finishEncrypting()
        return tag + body
    }

    /// Decrypts and verifies a ciphertext made by ``seal(key:associatedData:plaintext:)``.
    /// - Throws: ``AESSIVError/authenticationFailed`` when any bit differs.
    package static func open(key: [UInt8], associatedData: [[UInt8]], ciphertext: [UInt8]) throws(AESSIVError)
        -> [UInt8]
    {
        try validate(key: key, associatedData: associatedData)
        guard ciphertext.count >= tagLength else { throw .ciphertextTooShort(ciphertext.count) }
        let tag = Array(ciphertext.prefix(tagLength))
        let body = Array(ciphertext.dropFirst(tagLength))
        if body.isEmpty {
            let expected = try S2V.vector(
                macKey: Array(key.prefix(16)), components: associatedData, plaintext: [])
            guard CRYPTO_memcmp(expected, tag, tagLength) == 0 else { throw .authenticationFailed }
            return []
        }
        let cipher = try SIVCipher(key: key, encrypting: false)
        try cipher.setExpectedTag(tag)
        try cipher.addAssociatedData(associatedData)
        let plaintext = try cipher.process(body)
        try cipher.finishDecrypting()
        return plaintext
    }

    /// Checks the key length and the number of associated-data items.
    private static func validate(key: [UInt8], associatedData: [[UInt8]]) throws(AESSIVError) {
        guard key.count == keyLength else { throw .invalidKeyLength(key.count) }
        guard associatedData.count <= maximumAssociatedDataItems else {
            throw .tooManyAssociatedDataItems(associatedData.count)
        }
    }
}
