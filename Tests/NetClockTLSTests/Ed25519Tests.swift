import NetClockTLS
import Testing

/// Ed25519 through OpenSSL's EVP interface, against RFC 8032 §7.1's test vectors (TEST 1–3).
@Suite struct Ed25519Tests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var seed: String
        var publicKey: String
        var message: String
        var signature: String
        var description: String { name }
    }

    static let vectors = [
        Vector(
            name: "TEST 1 (empty message)",
            seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", message: "",
            signature:
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        Vector(
            name: "TEST 2 (one byte)",
            seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", message: "72",
            signature:
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
        Vector(
            name: "TEST 3 (two bytes)",
            seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", message: "af82",
            signature:
                "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
    ]

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @Test(
        "the seed derives the public key, signing gives the vector's signature, which verifies",
        arguments: vectors)
    func vector(_ vector: Vector) throws {
        let key = try Ed25519.PrivateKey(seed: Self.bytes(vector.seed))
        #expect(key.publicKey == Self.bytes(vector.publicKey))
        let signature = try key.signature(of: Self.bytes(vector.message))
        #expect(signature == Self.bytes(vector.signature))
        #expect(Ed25519.isValidSignature(signature, of: Self.bytes(vector.message), publicKey: key.publicKey))
    }

    @Test("a message split into parts verifies as its concatenation", arguments: vectors)
    func parts(_ vector: Vector) {
        let message = Self.bytes(vector.message)
        let signature = Self.bytes(vector.signature)
        let publicKey = Self.bytes(vector.publicKey)
        for cut in 0...message.count {
            #expect(
                Ed25519.isValidSignature(
                    signature, of: Array(message[..<cut]), Array(message[cut...]), publicKey: publicKey))
        }
    }

    @Test("any flipped bit of the signature, message or key, or a wrong length, fails", arguments: vectors)
    func tampering(_ vector: Vector) {
        let message = Self.bytes(vector.message)
        let signature = Self.bytes(vector.signature)
        let publicKey = Self.bytes(vector.publicKey)
        for bit in stride(from: 0, to: signature.count * 8, by: 37) {
            var bad = signature
            bad[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!Ed25519.isValidSignature(bad, of: message, publicKey: publicKey), "bit \(bit)")
        }
        #expect(!Ed25519.isValidSignature(signature, of: message + [0], publicKey: publicKey))
        var otherKey = publicKey
        otherKey[0] ^= 0x01
        #expect(!Ed25519.isValidSignature(signature, of: message, publicKey: otherKey))
        #expect(!Ed25519.isValidSignature(Array(signature.dropLast()), of: message, publicKey: publicKey))
        #expect(!Ed25519.isValidSignature(signature, of: message, publicKey: Array(publicKey.dropLast())))
        #expect(!Ed25519.isValidSignature([], of: message, publicKey: []))
    }

    @Test func generatedKeysSignAndDiffer() throws {
        let first = try Ed25519.PrivateKey.generate()
        let second = try Ed25519.PrivateKey.generate()
        #expect(first.seed != second.seed)
        #expect(first.publicKey != second.publicKey)
        let signature = try first.signature(of: Array("context\0".utf8), [1, 2, 3])
        #expect(
            Ed25519.isValidSignature(
                signature, of: Array("context\0".utf8) + [1, 2, 3], publicKey: first.publicKey))
        #expect(
            !Ed25519.isValidSignature(
                signature, of: Array("context\0".utf8) + [1, 2, 3], publicKey: second.publicKey))
        #expect(throws: Ed25519Error.self) { try Ed25519.PrivateKey(seed: [1, 2, 3]) }
    }
}
