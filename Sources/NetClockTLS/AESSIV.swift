import COpenSSL
import NetClockPlatform

/// AES-SIV-CMAC-256 (RFC 5297; AEAD algorithm 15 of RFC 8915): deterministic authenticated
/// encryption with a 32-byte key, its 16-byte synthetic IV (the tag) first in the ciphertext.
///
/// The nonce, when there is one, is the **last** associated-data item, as RFC 5297 §3 and NTS
/// (RFC 8915 §5.6) use it. Built from its two parts on OpenSSL: ``S2V`` on a CMAC over `AES-128-CBC`
/// (``AESCMAC``) and `AES-128-CTR` (``AESSIVKey``), not OpenSSL's `AES-128-SIV` cipher, which makes its key schedules and contexts
/// anew for every message (and produces no tag for an empty plaintext in OpenSSL 3.0).
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
    /// nonce, if any, already the last of them). One message under a fresh key (its key schedules
    /// included): for many messages under one key, ``AESSIVKey``.
    package static func seal(key: [UInt8], associatedData: [[UInt8]], plaintext: [UInt8]) throws(AESSIVError)
        -> [UInt8]
    {
        try validate(associatedData: associatedData)
        return try AESSIVKey(key).seal(associatedData: associatedData, plaintext: plaintext)
    }

    /// Decrypts and verifies a ciphertext made by ``seal(key:associatedData:plaintext:)``.
    /// - Throws: ``AESSIVError/authenticationFailed`` when any bit differs.
    package static func open(key: [UInt8], associatedData: [[UInt8]], ciphertext: [UInt8]) throws(AESSIVError)
        -> [UInt8]
    {
        try validate(associatedData: associatedData)
        return try AESSIVKey(key).open(associatedData: associatedData, ciphertext: ciphertext)
    }

    /// Checks the number of associated-data items.
    static func validate(associatedData: [[UInt8]]) throws(AESSIVError) {
        try validate(count: associatedData.count)
    }

    /// Checks a number of associated-data items.
    static func validate(count: Int) throws(AESSIVError) {
        guard count <= maximumAssociatedDataItems else { throw .tooManyAssociatedDataItems(count) }
    }
}

/// Why ``AESSIV`` could not seal or open a message: a stable ``AESSIVErrorCode`` and a reason.
package typealias AESSIVError = CodedError<AESSIVErrorCode>

/// What kind of failure an ``AESSIVError`` is.
package enum AESSIVErrorCode: String, ErrorCode, CaseIterable {
    /// The key is not ``AESSIV/keyLength`` (32) bytes long.
    case invalidKeyLength = "invalid_key_length"
    /// More associated-data items than RFC 5297 allows (126, the nonce included).
    case tooManyAssociatedDataItems = "too_many_associated_data_items"
    /// The ciphertext is shorter than the 16-byte SIV tag it must start with.
    case ciphertextTooShort = "ciphertext_too_short"
    /// The tag does not match: the key, nonce, associated data or ciphertext differ from what was
    /// sealed. Nothing of the plaintext is returned.
    case authenticationFailed = "authentication_failed"
    /// OpenSSL failed (an algorithm it cannot fetch, an allocation); the reason names the call.
    case cryptoFailure = "crypto_failure"
}

extension CodedError where Kind == AESSIVErrorCode {
    /// A key of `length` bytes, not 32.
    static func invalidKeyLength(_ length: Int) -> Self {
        Self(.invalidKeyLength, "AES-SIV-CMAC-256 needs a 32-byte key, not \(length) bytes")
    }

    /// `count` associated-data items, more than 126.
    static func tooManyAssociatedDataItems(_ count: Int) -> Self {
        Self(.tooManyAssociatedDataItems, "AES-SIV takes at most 126 associated-data items, not \(count)")
    }

    /// A ciphertext of `length` bytes, shorter than its tag.
    static func ciphertextTooShort(_ length: Int) -> Self {
        Self(
            .ciphertextTooShort,
            "an AES-SIV ciphertext starts with a 16-byte tag; \(length) bytes is too short")
    }

    /// The tag does not match.
    package static var authenticationFailed: Self {
        Self(.authenticationFailed, "AES-SIV authentication failed")
    }

    /// OpenSSL failed; `reason` names the call.
    static func cryptoFailure(_ reason: String) -> Self { Self(.cryptoFailure, "AES-SIV: \(reason)") }
}
