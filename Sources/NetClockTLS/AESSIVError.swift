/// Why ``AESSIV`` could not seal or open a message.
package enum AESSIVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key is not ``AESSIV/keyLength`` (32) bytes long.
    case invalidKeyLength(Int)
    /// More associated-data items than RFC 5297 allows (126, the nonce included).
    case tooManyAssociatedDataItems(Int)
    /// The ciphertext is shorter than the 16-byte SIV tag it must start with.
    case ciphertextTooShort(Int)
    /// The tag does not match: the key, nonce, associated data or ciphertext differ from what was
    /// sealed. Nothing of the plaintext is returned.
    case authenticationFailed
    /// OpenSSL failed (an algorithm it cannot fetch, an allocation); the reason names the call.
    case cryptoFailure(String)

    /// A readable explanation.
    package var description: String {
        switch self {
        case .invalidKeyLength(let length):
            return "AES-SIV-CMAC-256 needs a 32-byte key, not \(length) bytes"
        case .tooManyAssociatedDataItems(let count):
            return "AES-SIV takes at most 126 associated-data items, not \(count)"
        case .ciphertextTooShort(let length):
            return "an AES-SIV ciphertext starts with a 16-byte tag; \(length) bytes is too short"
        case .authenticationFailed:
            return "AES-SIV authentication failed"
        case .cryptoFailure(let reason):
            return "AES-SIV: \(reason)"
        }
    }
}
