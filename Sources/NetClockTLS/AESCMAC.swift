/// AES-128-CMAC (RFC 4493), for the S2V step of ``AESSIV``: the CBC-MAC computed on one
/// `AES-128-CBC` cipher context keyed once, with the two subkeys derived when the key is set.
///
/// Why not OpenSSL's `CMAC` MAC: each of its messages re-initialises the cipher context and asks
/// the provider for the IV and MAC sizes through parameter lists (~180 ns of name lookups a message,
/// six messages per NTS exchange), where the AES blocks themselves take ~11 ns each. Here a message
/// costs its blocks and one `EVP_EncryptUpdate` per run of blocks: the context is never reset. Its
/// CBC chaining value after any message is the last block it produced (``chain``), so a new message
/// starts from a zero IV by XORing that value into its first block.
///
/// Streaming: ``begin()``, ``update(_:)`` any number of times, ``finish()``. One instance holds one
/// OpenSSL cipher context, freed with it; use it on one thread at a time.
final class AESCMAC {
    /// The length of a tag and of the key: one AES block.
    static let blockLength = 16
    /// The most bytes encrypted by one `EVP_EncryptUpdate` (the scratch buffer's size).
    private static let chunkLength = 512

    /// What changes as a message is MACed. Held in memory of its own, reached through a pointer:
    /// a block then costs no exclusivity check or reference count, only its AES.
    private struct State {
        /// RFC 4493's K1 (for a complete last block) and K2 (for a padded one).
        var k1 = SIVBlock.zero
        var k2 = SIVBlock.zero
        /// The context's chaining value: the last block it encrypted to.
        var chain = SIVBlock.zero
        /// The message's bytes not yet encrypted (1–16 once the message has any: the last block
        /// waits for ``finish()``), and how many there are.
        var pending = SIVBlock.zero
        var pendingCount = 0
        /// Whether a block of the current message was encrypted (the first takes ``chain`` out).
        var started = false
    }

    /// The `AES-128-CBC` context, keyed once.
    private let aes: AESContext
    /// The state, freed with the instance.
    private let state: UnsafeMutablePointer<State>
    /// Where the CBC output of runs of blocks goes (only its last block is used); freed with the
    /// instance.
    private let scratch: UnsafeMutableRawBufferPointer

    /// A CMAC keyed with `key`, which must be 16 bytes.
    init(key: [UInt8]) throws(AESSIVError) {
        guard key.count == Self.blockLength else { throw .cryptoFailure("CMAC key of \(key.count) bytes") }
        aes = try AESContext(mode: "CBC", key: key)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        scratch = .allocate(byteCount: Self.chunkLength, alignment: 16)
        // L = AES(K, 0¹²⁸): the zero block under the zero IV.
        guard let l = encrypt(.zero) else { throw Self.failure() }
        state.pointee.k1 = l.doubled
        state.pointee.k2 = state.pointee.k1.doubled
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        scratch.deallocate()
    }

    /// The CMAC of `message`; nil when OpenSSL failed (``failure()`` says why).
    func tag(_ message: UnsafeRawBufferPointer) -> SIVBlock? {
        guard begin(), update(message) else { return nil }
        return finish()
    }

    /// Starts a message under the key (forgetting any unfinished one); always true.
    func begin() -> Bool {
        state.pointee.pendingCount = 0
        state.pointee.started = false
        return true
    }

    /// Adds `bytes` to the message; false when OpenSSL failed.
    func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return true }
        var rest = bytes
        // Fill the pending block; it is encrypted only once more bytes follow it.
        let pendingCount = state.pointee.pendingCount
        if pendingCount > 0 || !state.pointee.started {
            let taken = min(Self.blockLength - pendingCount, rest.count)
            state.pointee.pending.withUnsafeMutableBytes { block in
                UnsafeMutableRawBufferPointer(rebasing: block[pendingCount..<(pendingCount + taken)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[..<taken]))
            }
            state.pointee.pendingCount = pendingCount + taken
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            guard !rest.isEmpty else { return true }
            guard absorb(state.pointee.pending) else { return false }
            state.pointee.pendingCount = 0
        }
        // Whole blocks where they lie, all but the last (or the last partial) one.
        let whole = (rest.count - 1) / Self.blockLength * Self.blockLength
        var offset = 0
        while offset < whole {
            let length = min(Self.chunkLength, whole - offset)
            guard aes.encrypt(rest.baseAddress.map { $0 + offset }, to: scratch.baseAddress, count: length)
            else {
                return resynchronise()
            }
            state.pointee.chain = SIVBlock(UnsafeRawBufferPointer(rebasing: scratch[(length - 16)..<length]))
            offset += length
        }
        let tail = UnsafeRawBufferPointer(rebasing: rest[whole...])
        state.pointee.pending = .zero
        state.pointee.pending.withUnsafeMutableBytes { $0.copyMemory(from: tail) }
        state.pointee.pendingCount = tail.count
        return true
    }

    /// The tag of the message; nil when OpenSSL failed.
    func finish() -> SIVBlock? {
        var last = state.pointee.pending
        let pendingCount = state.pointee.pendingCount
        if pendingCount == Self.blockLength {
            last = last ^ state.pointee.k1
        } else {
            last.withUnsafeMutableBytes { block in
                block[pendingCount] = 0x80
                for index in (pendingCount + 1)..<Self.blockLength { block[index] = 0 }
            }
            last = last ^ state.pointee.k2
        }
        guard absorb(last) else { return nil }
        state.pointee.pendingCount = 0
        state.pointee.started = false
        return state.pointee.chain
    }

    /// The error of a failed ``tag(_:)``, ``update(_:)`` or ``finish()``.
    static func failure() -> AESSIVError {
        .cryptoFailure(OpenSSLErrorQueue.reason(or: "CMAC (AES-128-CBC) failed"))
    }

    /// Encrypts one block of the message (the first one from a zero IV); false when OpenSSL failed.
    private func absorb(_ block: SIVBlock) -> Bool {
        let input = state.pointee.started ? block : block ^ state.pointee.chain
        state.pointee.started = true
        return encrypt(input) != nil
    }

    /// One CBC block: `AES(K, block ⊕ chain)`, which becomes the chain.
    private func encrypt(_ block: SIVBlock) -> SIVBlock? {
        var output = SIVBlock.zero
        let encrypted = block.withUnsafeBytes { input in
            output.withUnsafeMutableBytes {
                aes.encrypt(input.baseAddress, to: $0.baseAddress, count: Self.blockLength)
            }
        }
        guard encrypted else {
            _ = resynchronise()
            return nil
        }
        state.pointee.chain = output
        return output
    }

    /// After a failed encryption, when the context's chaining value is unknown: sets it to zero
    /// again, so later messages stay correct. Returns false (the failure), for the caller to pass on.
    private func resynchronise() -> Bool {
        if aes.restartFromZeroIV() { state.pointee.chain = .zero }
        state.pointee.started = false
        return false
    }
}
