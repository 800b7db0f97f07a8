import NetClockPlatform

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
        Self(.ciphertextTooShort, "an AES-SIV ciphertext starts with a 16-byte tag; \(length) bytes is too short")
    }

    /// The tag does not match.
    package static var authenticationFailed: Self { Self(.authenticationFailed, "AES-SIV authentication failed") }

    /// OpenSSL failed; `reason` names the call.
    static func cryptoFailure(_ reason: String) -> Self { Self(.cryptoFailure, "AES-SIV: \(reason)") }
}
