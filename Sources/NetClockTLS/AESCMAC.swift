/// AES-128-CMAC (RFC 4493), for the S2V step of ``AESSIV``: the CBC-MAC computed on one
/// `AES-128-CBC` cipher context keyed once, with the two subkeys derived when the key is set.
///
/// Why not OpenSSL's `CMAC` MAC: each of its messages re-initialises the cipher context and asks
/// the provider for the IV and MAC sizes through parameter lists (~180 ns of name lookups a message,
/// six messages per NTS exchange), where the AES blocks themselves take ~11 ns each. Here a message
/// of up to 512 bytes costs its blocks and one `EVP_EncryptUpdate`: it is copied to a scratch
/// buffer, its first block XORed with the chaining value the context was left with (so that it
/// starts from a zero IV with no reset), its last block padded and XORed with a subkey, and the
/// whole encrypted in place; the tag is the last block out (an NTS packet's parts are 16–250 bytes,
/// so one call each). Longer messages take one call per 512 bytes.
///
/// One instance holds one OpenSSL cipher context and its buffer, freed with it; use it on one
/// thread at a time.
final class AESCMAC {
    /// The length of a tag and of the key: one AES block.
    static let blockLength = 16
    /// The most bytes encrypted by one `EVP_EncryptUpdate` (the scratch buffer's size).
    private static let chunkLength = 512

    /// The `AES-128-CBC` context, keyed once.
    private let aes: AESContext
    /// RFC 4493's K1 (for a complete last block) and K2 (for a padded one).
    private let k1: SIVBlock
    private let k2: SIVBlock
    /// The context's chaining value (the last block it encrypted to), and where a message's blocks
    /// are laid out and encrypted: memory of their own, reached with no exclusivity check or
    /// reference count, freed with the instance.
    private let chain: UnsafeMutablePointer<SIVBlock>
    private let scratch: UnsafeMutableRawBufferPointer

    /// A CMAC keyed with `key`, which must be 16 bytes.
    init(key: [UInt8]) throws(AESSIVError) {
        guard key.count == Self.blockLength else { throw .cryptoFailure("CMAC key of \(key.count) bytes") }
        let aes = try AESContext(mode: "CBC", key: key)
        // L = AES(K, 0¹²⁸): the zero block under the zero IV the context starts from.
        var l = SIVBlock.zero
        let encrypted = l.withUnsafeMutableBytes {
            aes.encrypt($0.baseAddress, to: $0.baseAddress, count: 16)
        }
        guard encrypted else { throw Self.failure() }
        self.aes = aes
        k1 = l.doubled
        k2 = l.doubled.doubled
        chain = .allocate(capacity: 1)
        chain.initialize(to: l)
        scratch = .allocate(byteCount: Self.chunkLength, alignment: 16)
    }

    deinit {
        chain.deinitialize(count: 1)
        chain.deallocate()
        scratch.deallocate()
    }

    /// The CMAC of `message`, its last 16 bytes first XORed with `end` when given (S2V's "xorend",
    /// RFC 5297 §2.4; the message then has at least 16 bytes); nil when OpenSSL failed
    /// (``failure()`` says why) or `end` is given for a shorter message.
    func tag(_ message: UnsafeRawBufferPointer, xoringEndWith end: SIVBlock? = nil) -> SIVBlock? {
        let count = message.count
        if end != nil && count < Self.blockLength { return nil }
        let complete = count > 0 && count % Self.blockLength == 0
        let blocks = max(1, (count + Self.blockLength - 1) / Self.blockLength)
        var done = 0  // blocks encrypted
        while done < blocks {
            let chunkBlocks = min(blocks - done, Self.chunkLength / Self.blockLength)
            let chunk = chunkBlocks * Self.blockLength
            let start = done * Self.blockLength
            let taken = max(0, min(count - start, chunk))
            if taken > 0 {
                scratch.copyMemory(from: UnsafeRawBufferPointer(rebasing: message[start..<(start + taken)]))
            }
            if taken < chunk {
                // The last block's padding: 10*.
                scratch[taken] = 0x80
                for index in (taken + 1)..<chunk { scratch[index] = 0 }
            }
            if let end { xor(end, intoBytesFrom: count - Self.blockLength, chunkStart: start, chunk: chunk) }
            if done == 0 { xorBlock(chain.pointee, at: 0) }
            if done + chunkBlocks == blocks { xorBlock(complete ? k1 : k2, at: chunk - Self.blockLength) }
            guard aes.encrypt(scratch.baseAddress, to: scratch.baseAddress, count: chunk) else {
                resynchronise()
                return nil
            }
            chain.pointee = SIVBlock(
                UnsafeRawBufferPointer(rebasing: scratch[(chunk - Self.blockLength)..<chunk]))
            done += chunkBlocks
        }
        return chain.pointee
    }

    /// The error of a failed ``tag(_:xoringEndWith:)``.
    static func failure() -> AESSIVError {
        .cryptoFailure(OpenSSLErrorQueue.reason(or: "CMAC (AES-128-CBC) failed"))
    }

    /// XORs `block` into the scratch buffer's 16 bytes at `offset`.
    private func xorBlock(_ block: SIVBlock, at offset: Int) {
        let here = UnsafeMutableRawBufferPointer(rebasing: scratch[offset..<(offset + Self.blockLength)])
        let mixed = SIVBlock(UnsafeRawBufferPointer(here)) ^ block
        mixed.withUnsafeBytes { here.copyMemory(from: $0) }
    }

    /// XORs `block` into the message's 16 bytes from `messageOffset`, as far as they lie in the
    /// chunk at `chunkStart` (which holds the message's bytes `chunkStart..<chunkStart + chunk`).
    private func xor(_ block: SIVBlock, intoBytesFrom messageOffset: Int, chunkStart: Int, chunk: Int) {
        let low = max(messageOffset, chunkStart)
        let high = min(messageOffset + Self.blockLength, chunkStart + chunk)
        guard low < high else { return }
        block.withUnsafeBytes { bytes in
            for offset in low..<high {
                scratch[offset - chunkStart] ^= bytes[offset - messageOffset]
            }
        }
    }

    /// After a failed encryption, when the context's chaining value is unknown: starts it from the
    /// zero IV again, so later messages stay correct.
    private func resynchronise() {
        if aes.restartFromZeroIV() { chain.pointee = .zero }
    }
}
