import Testing

/// Known answers for AES-SIV-CMAC-256.
///
/// - ``rfc5297A1`` and ``rfc5297A2``: RFC 5297 Appendix A.1 (deterministic) and A.2 (nonce-based,
///   two associated-data items, the nonce as the last component).
/// - The empty-plaintext answers have no published vector. They were computed once (2026-12-01)
///   with two independent implementations, pycryptodome 4.4.0 (its own CMAC and S2V) and Python
///   `cryptography` 48.0.0, which agreed:
///   ```
///   from Crypto.Cipher import AES
///   c = AES.new(key, AES.MODE_SIV, nonce=nonce)   # nonce=None for no nonce
///   for item in associated_data: c.update(item)
///   ciphertext, tag = c.encrypt_and_digest(b"")   # expected = tag + ciphertext
///   # cryptography: AESSIV(key).encrypt(b"", associated_data + [nonce])
///   ```
///   Both implementations also reproduce A.1 and A.2.
struct AESSIVVector: Sendable, CustomTestStringConvertible {
    var name: String
    var key: [UInt8]
    /// The associated-data items in order; for nonce-based vectors the nonce is ``nonce``, not here.
    var associatedData: [[UInt8]]
    var nonce: [UInt8]?
    var plaintext: [UInt8]
    /// The tag followed by the ciphertext.
    var expected: [UInt8]

    var testDescription: String { name }

    /// Every associated-data item, the nonce last.
    var components: [[UInt8]] { associatedData + (nonce.map { [$0] } ?? []) }

    static let rfc5297A1 = AESSIVVector(
        name: "RFC 5297 A.1",
        key: hex("fffefdfc fbfaf9f8 f7f6f5f4 f3f2f1f0 f0f1f2f3 f4f5f6f7 f8f9fafb fcfdfeff"),
        associatedData: [hex("10111213 14151617 18191a1b 1c1d1e1f 20212223 24252627")],
        nonce: nil,
        plaintext: hex("11223344 55667788 99aabbcc ddee"),
        expected: hex("85632d07 c6e8f37f 950acd32 0a2ecc93 40c02b96 90c4dc04 daef7f6a fe5c"))

    static let rfc5297A2 = AESSIVVector(
        name: "RFC 5297 A.2",
        key: hex("7f7e7d7c 7b7a7978 77767574 73727170 40414243 44454647 48494a4b 4c4d4e4f"),
        associatedData: [
            hex(
                "00112233 44556677 8899aabb ccddeeff deaddada deaddada ffeeddcc bbaa9988 77665544 33221100"),
            hex("10203040 50607080 90a0"),
        ],
        nonce: hex("09f91102 9d74e35b d84156c5 635688c0"),
        plaintext: hex(
            "74686973 20697320 736f6d65 20706c61 696e7465 78742074 6f20656e 63727970 74207573 696e6720 5349562d 414553"
        ),
        expected: hex(
            "7bdb6e3b 432667eb 06f4d14b ff2fbd0f cb900f2f ddbe4043 26601965 c889bf17 dba77ceb 094fa663 b7a3f748 ba8af829 ea64ad54 4a272e9c 485b62a3 fd5c0d"
        ))

    /// A.2's key, associated data and nonce with an empty plaintext: the shape of an NTS request.
    static let emptyWithNonce = AESSIVVector(
        name: "empty plaintext, A.2 key, data and nonce",
        key: rfc5297A2.key, associatedData: rfc5297A2.associatedData, nonce: rfc5297A2.nonce,
        plaintext: [], expected: hex("86562183 257fdf31 30419a0a 5d3ef6b8"))

    /// A.1's key and associated data with an empty plaintext.
    static let emptyDeterministic = AESSIVVector(
        name: "empty plaintext, A.1 key and data",
        key: rfc5297A1.key, associatedData: rfc5297A1.associatedData, nonce: nil,
        plaintext: [], expected: hex("b9d5cc97 054dcd3f 6dfda629 d4f4d313"))

    /// A.1's key alone: S2V of a single empty string.
    static let emptyAlone = AESSIVVector(
        name: "empty plaintext, A.1 key, no associated data",
        key: rfc5297A1.key, associatedData: [], nonce: nil,
        plaintext: [], expected: hex("f2007a5b eb2b8900 c588a7ad f599f172"))

    static let all: [AESSIVVector] = [rfc5297A1, rfc5297A2, emptyWithNonce, emptyDeterministic, emptyAlone]
}

/// The bytes of a hexadecimal string; spaces are ignored. Test data only: traps on a typo.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
            preconditionFailure("not hex: \(digits[index...index + 1])")
        }
        return byte
    }
}
