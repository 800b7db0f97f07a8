import COpenSSL
import Synchronization

/// An AES-SIV-CMAC-256 key (RFC 5297) ready for many messages: S2V on a keyed ``AESCMAC`` and the
/// encryption on keyed ``AESCTR``, their AES key schedules made once, when the key is made.
///
/// A message then costs its CMAC and counter-mode blocks and nothing else: no algorithm fetch,
/// context allocation or key schedule per message (which is what sealing with a fresh key costs,
/// ``AESSIV``'s one-shot functions), and in place (``seal(_:nonce:plaintext:into:)``) no array. An
/// NTS association keeps one per direction. Messages under one key are taken one at a time (a
/// mutex, never contended in practice).
///
/// Unchecked `Sendable`: the two primitives keep per-message state, and are only reached under
/// ``lock``. They are constants of the key, not values inside the lock, so that a message reaches
/// them with no copy or reference count.
package final class AESSIVKey: @unchecked Sendable {
    /// S2V, keyed with the first half of the key.
    private let s2v: S2V
    /// Counter mode, keyed with the second half.
    private let ctr: AESCTR
    /// Held for each message.
    private let lock = Mutex(())

    /// Makes the key schedules of `key` (32 bytes: the first half keys S2V, the second CTR mode).
    package init(_ key: [UInt8]) throws(AESSIVError) {
        guard key.count == AESSIV.keyLength else { throw .invalidKeyLength(key.count) }
        s2v = try S2V(macKey: Array(key[0..<16]))
        ctr = try AESCTR(key: Array(key[16..<32]))
    }

    /// Encrypts `plaintext` under the associated-data items in order (a nonce, if any, the last of
    /// them). - Returns: the 16-byte synthetic IV, then as many bytes of ciphertext as `plaintext`.
    package func seal(associatedData: [[UInt8]], plaintext: [UInt8]) throws(AESSIVError) -> [UInt8] {
        try seal(associatedData: associatedData.map { $0[...] }, plaintext: plaintext)
    }

    /// ``seal(associatedData:plaintext:)`` with the associated-data items where they lie (parts of
    /// a packet), none copied.
    package func seal(associatedData: [ArraySlice<UInt8>], plaintext: [UInt8]) throws(AESSIVError) -> [UInt8]
    {
        try AESSIV.validate(count: associatedData.count)
        return try seal(.items(associatedData), plaintext: plaintext)
    }

    /// ``seal(associatedData:plaintext:)`` with NTS's two associated-data items, the packet's bytes
    /// before the authenticator and the nonce, where they lie and with no array of them.
    package func seal(_ associatedData: ArraySlice<UInt8>, nonce: ArraySlice<UInt8>, plaintext: [UInt8])
        throws(AESSIVError) -> [UInt8]
    {
        try withPacket(associatedData, nonce: nonce) { (packet) throws(AESSIVError) in
            try seal(packet, plaintext: plaintext)
        }
    }

    /// Seals a packet in place: S2V over its bytes before the authenticator and its nonce, then
    /// `plaintext`; writes the synthetic IV and the encrypted text (16 bytes more than `plaintext`)
    /// to `ciphertext`, the authenticator's space in the packet being written. No array is made.
    /// - Throws: ``AESSIVErrorCode/cryptoFailure`` when `ciphertext` is not exactly that long or
    ///   OpenSSL fails.
    package func seal(
        _ associatedData: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        plaintext: UnsafeRawBufferPointer,
        into ciphertext: UnsafeMutableRawBufferPointer
    ) throws(AESSIVError) {
        guard ciphertext.count == AESSIV.tagLength + plaintext.count else {
            throw .cryptoFailure(
                "\(ciphertext.count) bytes of room for the \(AESSIV.tagLength + plaintext.count) of ciphertext"
            )
        }
        try seal(.packet(associatedData, nonce: nonce), plaintext: plaintext, into: ciphertext)
    }

    /// Decrypts and verifies what ``seal(associatedData:plaintext:)`` made.
    /// - Throws: ``AESSIVErrorCode/authenticationFailed`` when any bit of the key, associated data,
    ///   tag or ciphertext differs; nothing of the plaintext is returned then.
    package func open(associatedData: [[UInt8]], ciphertext: [UInt8]) throws(AESSIVError) -> [UInt8] {
        try open(associatedData: associatedData.map { $0[...] }, ciphertext: ciphertext[...])
    }

    /// ``open(associatedData:ciphertext:)`` with the associated data and the ciphertext where they
    /// lie (parts of a received packet), none copied.
    package func open(associatedData: [ArraySlice<UInt8>], ciphertext: ArraySlice<UInt8>) throws(AESSIVError)
        -> [UInt8]
    {
        try AESSIV.validate(count: associatedData.count)
        return try open(.items(associatedData), ciphertext: ciphertext)
    }

    /// ``open(associatedData:ciphertext:)`` with NTS's two associated-data items, the packet's
    /// bytes before the authenticator and the nonce, where they lie and with no array of them.
    package func open(
        _ associatedData: ArraySlice<UInt8>, nonce: ArraySlice<UInt8>, ciphertext: ArraySlice<UInt8>
    )
        throws(AESSIVError) -> [UInt8]
    {
        try withPacket(associatedData, nonce: nonce) { (packet) throws(AESSIVError) in
            try open(packet, ciphertext: ciphertext)
        }
    }

    /// Opens a packet's authenticator in place: S2V over its bytes before the authenticator and
    /// its nonce; writes the decrypted text (16 bytes fewer than `ciphertext`) to `plaintext`,
    /// memory of the caller's, with no array made.
    /// - Throws: ``AESSIVErrorCode/authenticationFailed`` when any bit differs (what `plaintext`
    ///   holds then is not to be used), ``AESSIVErrorCode/ciphertextTooShort`` below a tag, and
    ///   ``AESSIVErrorCode/cryptoFailure`` when `plaintext` is not exactly that long.
    package func open(
        _ associatedData: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        ciphertext: UnsafeRawBufferPointer,
        into plaintext: UnsafeMutableRawBufferPointer
    ) throws(AESSIVError) {
        guard ciphertext.count >= AESSIV.tagLength else { throw .ciphertextTooShort(ciphertext.count) }
        guard plaintext.count == ciphertext.count - AESSIV.tagLength else {
            throw .cryptoFailure(
                "\(plaintext.count) bytes of room for \(ciphertext.count - AESSIV.tagLength) of plaintext")
        }
        try open(.packet(associatedData, nonce: nonce), sealed: ciphertext, into: plaintext)
    }

    /// The associated data of one message: any list of items, or an NTS packet's two.
    private enum AssociatedData {
        case items([ArraySlice<UInt8>])
        case packet(UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer)

        /// S2V over these items and `plaintext`.
        func vector(_ s2v: S2V, plaintext: UnsafeRawBufferPointer) throws(AESSIVError) -> SIVBlock {
            switch self {
            case .items(let items): try s2v.vector(components: items, plaintext: plaintext)
            case .packet(let bytes, let nonce): try s2v.vector(bytes, nonce, plaintext: plaintext)
            }
        }
    }

    /// What `body` makes of NTS's two associated-data items, a packet's bytes and its nonce, where
    /// they lie in memory.
    private func withPacket(
        _ associatedData: ArraySlice<UInt8>, nonce: ArraySlice<UInt8>,
        _ body: (AssociatedData) throws(AESSIVError) -> [UInt8]
    ) throws(AESSIVError) -> [UInt8] {
        // No error made up front: making one costs more than the sealing's own checks.
        var result: Result<[UInt8], AESSIVError>?
        associatedData.withUnsafeBytes { associatedData in
            nonce.withUnsafeBytes { nonce in
                result = Result { () throws(AESSIVError) in try body(.packet(associatedData, nonce: nonce)) }
            }
        }
        guard let result else { throw .cryptoFailure("no AES-SIV result") }
        return try result.get()
    }

    /// Seals `plaintext` under `associatedData`.
    private func seal(_ associatedData: AssociatedData, plaintext: [UInt8]) throws(AESSIVError) -> [UInt8] {
        try Self.array(count: AESSIV.tagLength + plaintext.count, from: plaintext[...]) {
            (text, output) throws(AESSIVError) in
            try seal(associatedData, plaintext: text, into: output)
        }
    }

    /// Seals `plaintext` under `associatedData` into `output` (16 bytes more than `plaintext`).
    private func seal(
        _ associatedData: AssociatedData, plaintext: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(AESSIVError) {
        try lock.withLock { _ throws(AESSIVError) in
            OpenSSLErrorQueue.clearIfNotEmpty()
            let v = try associatedData.vector(s2v, plaintext: plaintext)
            v.withUnsafeBytes { output.copyMemory(from: $0) }
            guard !plaintext.isEmpty else { return }
            try ctr.apply(
                counter: Self.counter(v), plaintext,
                to: UnsafeMutableRawBufferPointer(rebasing: output[AESSIV.tagLength...]))
        }
    }

    /// Opens `ciphertext` and checks its tag over `associatedData` and the decrypted text.
    private func open(_ associatedData: AssociatedData, ciphertext: ArraySlice<UInt8>) throws(AESSIVError)
        -> [UInt8]
    {
        guard ciphertext.count >= AESSIV.tagLength else { throw .ciphertextTooShort(ciphertext.count) }
        return try Self.array(count: ciphertext.count - AESSIV.tagLength, from: ciphertext) {
            (sealed, output) throws(AESSIVError) in
            try open(associatedData, sealed: sealed, into: output)
        }
    }

    /// A new array of `count` bytes that `body` writes, given `input`'s bytes where they lie: the
    /// array forms of sealing and opening around their in-place ones.
    private static func array(
        count: Int, from input: ArraySlice<UInt8>,
        _ body: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) throws(AESSIVError) -> Void
    ) throws(AESSIVError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        // The standard library's `withUnsafeBytes` would widen the error to `any Error`.
        let result = input.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                Result { () throws(AESSIVError) in try body(input, output) }
            }
        }
        try result.get()
        return output
    }

    /// Decrypts `sealed` (tag, then text) into `output` (16 bytes shorter) and checks the tag over
    /// `associatedData` and the decrypted text.
    private func open(
        _ associatedData: AssociatedData, sealed: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(AESSIVError) {
        try lock.withLock { _ throws(AESSIVError) in
            OpenSSLErrorQueue.clearIfNotEmpty()
            let v = SIVBlock(sealed)
            if !output.isEmpty {
                try ctr.apply(
                    counter: Self.counter(v), UnsafeRawBufferPointer(rebasing: sealed[AESSIV.tagLength...]),
                    to: output)
            }
            let t = try associatedData.vector(s2v, plaintext: UnsafeRawBufferPointer(output))
            let equal = t.withUnsafeBytes { expected in
                CRYPTO_memcmp(expected.baseAddress, sealed.baseAddress, AESSIV.tagLength) == 0
            }
            if !equal { throw .authenticationFailed }
        }
    }

    /// The initial counter block for synthetic IV `v`: `V` with bits 63 and 31 of its last 64 bits
    /// cleared (RFC 5297 §2.6), so that implementations with 32- or 64-bit counters agree.
    static func counter(_ v: SIVBlock) -> SIVBlock {
        SIVBlock(high: v.high, low: v.low & ~(1 << 63 | 1 << 31))
    }
}
