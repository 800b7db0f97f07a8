import Testing

@testable import NetClockTLS

/// AES-SIV-CMAC-256: known answers, tampering, and bad keys.
@Suite struct AESSIVTests {
    @Test("seal matches the known answer", arguments: AESSIVVector.all)
    func sealKnownAnswer(_ vector: AESSIVVector) throws {
        let sealed = try AESSIV.seal(
            key: vector.key, associatedData: vector.components, plaintext: vector.plaintext)
        #expect(sealed == vector.expected)
        if let nonce = vector.nonce {
            let viaNonce = try AESSIV.seal(
                key: vector.key, nonce: nonce, associatedData: vector.associatedData,
                plaintext: vector.plaintext)
            #expect(viaNonce == vector.expected)
        }
    }

    @Test("open recovers the plaintext of the known answer", arguments: AESSIVVector.all)
    func openKnownAnswer(_ vector: AESSIVVector) throws {
        let opened = try AESSIV.open(
            key: vector.key, associatedData: vector.components, ciphertext: vector.expected)
        #expect(opened == vector.plaintext)
    }

    @Test("S2V alone equals the tag of a sealed non-empty plaintext")
    func handMadeS2VMatchesOpenSSL() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 15, 16, 17, 48, 100] {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let items = [[UInt8](repeating: 7, count: length % 20), [], [UInt8](repeating: 9, count: 16)]
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sealed = try AESSIV.seal(key: key, associatedData: items, plaintext: plaintext)
            let vector = try S2V.vector(
                macKey: Array(key.prefix(16)), components: items, plaintext: plaintext)
            #expect(Array(sealed.prefix(16)) == vector, "plaintext of \(length) bytes")
        }
    }

    @Test("a packet and its nonce seal and open as the same two items in a list")
    func packetFormMatchesTheListForm() throws {
        var generator = SystemRandomNumberGenerator()
        let key = try AESSIVKey((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for (length, plaintextLength) in [(48, 0), (228, 0), (84, 104), (100, 15), (0, 17)] {
            let packet = (0..<(length + 16)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let (bytes, nonce) = (packet[..<length], packet[length...])
            let plaintext = (0..<plaintextLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sealed = try key.seal(bytes, nonce: nonce, plaintext: plaintext)
            #expect(sealed == (try key.seal(associatedData: [bytes, nonce], plaintext: plaintext)))
            #expect(try key.open(bytes, nonce: nonce, ciphertext: sealed[...]) == plaintext)
            var tampered = sealed
            tampered[0] ^= 1
            #expect(throws: AESSIVError.authenticationFailed) {
                try key.open(bytes, nonce: nonce, ciphertext: tampered[...])
            }
            #expect(throws: AESSIVError.authenticationFailed) {
                try key.open(nonce, nonce: bytes, ciphertext: sealed[...])
            }
        }
    }

    @Test(
        "open rejects any flipped bit: tag, ciphertext, associated data, nonce, key",
        arguments: [
            AESSIVVector.rfc5297A2, AESSIVVector.emptyWithNonce,
        ])
    func flippedBits(_ vector: AESSIVVector) throws {
        let nonce = try #require(vector.nonce)
        for byte in vector.expected.indices {
            for bit in [0, 7] {
                var ciphertext = vector.expected
                ciphertext[byte] ^= 1 << bit
                #expect(throws: AESSIVError.authenticationFailed) {
                    try AESSIV.open(
                        key: vector.key, nonce: nonce, associatedData: vector.associatedData,
                        ciphertext: ciphertext)
                }
            }
        }
        for item in vector.associatedData.indices {
            var data = vector.associatedData
            data[item][data[item].count - 1] ^= 0x01
            #expect(throws: AESSIVError.authenticationFailed) {
                try AESSIV.open(
                    key: vector.key, nonce: nonce, associatedData: data, ciphertext: vector.expected)
            }
        }
        var otherNonce = nonce
        otherNonce[0] ^= 0x80
        #expect(throws: AESSIVError.authenticationFailed) {
            try AESSIV.open(
                key: vector.key, nonce: otherNonce, associatedData: vector.associatedData,
                ciphertext: vector.expected)
        }
        // The first half of the key keys S2V; the second keys CTR mode, which an empty plaintext
        // never uses (so with one, only the first half matters).
        let keyBytes = vector.plaintext.isEmpty ? [0, 15] : [0, 15, 16, 31]
        for byte in keyBytes {
            var otherKey = vector.key
            otherKey[byte] ^= 0x01
            #expect(throws: AESSIVError.authenticationFailed, "key byte \(byte)") {
                try AESSIV.open(
                    key: otherKey, nonce: nonce, associatedData: vector.associatedData,
                    ciphertext: vector.expected)
            }
        }
        // The nonce is an item of its own: moving it into the associated data changes the tag.
        #expect(throws: AESSIVError.authenticationFailed) {
            try AESSIV.open(
                key: vector.key, associatedData: [nonce] + vector.associatedData, ciphertext: vector.expected)
        }
    }

    @Test("a key that is not 32 bytes is an error", arguments: [0, 16, 31, 33, 64])
    func wrongKeyLength(_ length: Int) {
        let key = [UInt8](repeating: 1, count: length)
        #expect(throws: AESSIVError.invalidKeyLength(length)) {
            try AESSIV.seal(key: key, nonce: [1], associatedData: [], plaintext: [1, 2, 3])
        }
        #expect(throws: AESSIVError.invalidKeyLength(length)) {
            try AESSIV.open(
                key: key, nonce: [1], associatedData: [], ciphertext: [UInt8](repeating: 0, count: 20))
        }
    }

    @Test("a ciphertext shorter than the tag is an error")
    func shortCiphertext() {
        #expect(throws: AESSIVError.ciphertextTooShort(15)) {
            try AESSIV.open(
                key: [UInt8](repeating: 1, count: 32), nonce: [1], associatedData: [],
                ciphertext: [UInt8](repeating: 0, count: 15))
        }
    }

    @Test("more than 126 associated-data items is an error")
    func tooManyItems() throws {
        let key = [UInt8](repeating: 1, count: 32)
        _ = try AESSIV.seal(key: key, associatedData: Array(repeating: [1], count: 126), plaintext: [])
        #expect(throws: AESSIVError.tooManyAssociatedDataItems(127)) {
            try AESSIV.seal(key: key, associatedData: Array(repeating: [1], count: 127), plaintext: [])
        }
    }

    @Test("seal then open round-trips, with fresh nonces giving different ciphertexts")
    func roundTrip() throws {
        let key = (0..<32).map { UInt8($0) }
        for length in [0, 1, 16, 33, 500] {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let one = try AESSIV.seal(
                key: key, nonce: [1, 2, 3], associatedData: [[9]], plaintext: plaintext)
            let two = try AESSIV.seal(
                key: key, nonce: [1, 2, 4], associatedData: [[9]], plaintext: plaintext)
            #expect(one.count == length + 16 && one != two)
            #expect(
                try AESSIV.open(key: key, nonce: [1, 2, 3], associatedData: [[9]], ciphertext: one)
                    == plaintext)
        }
    }
}
