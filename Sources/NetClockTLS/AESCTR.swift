/// AES-128 in counter mode (the 128-bit big-endian counter RFC 5297 §2.5 uses), for the
/// encryption step of ``AESSIV``: the counter blocks are made here and encrypted with OpenSSL's
/// `AES-128-ECB`, and the key stream is XORed into the text.
///
/// The key is set once, when the instance is made, and a message changes no cipher state: where
/// OpenSSL's `AES-128-CTR` must be started again with each message's initial counter (~100 ns of
/// `EVP_EncryptInit_ex2` a message, measured here), this costs one `EVP_EncryptUpdate` per 512
/// bytes. One instance holds one OpenSSL cipher context, freed with it; use it on one thread at a
/// time.
final class AESCTR {
    /// The most bytes of key stream made by one `EVP_EncryptUpdate`.
    private static let chunkLength = 512

    /// The `AES-128-ECB` context, keyed once.
    private let aes: AESContext
    /// The counter blocks of one chunk, then (encrypted in place) its key stream: memory of its
    /// own, freed with the instance, reached with no exclusivity check or reference count.
    private let stream: UnsafeMutableRawBufferPointer

    /// Counter mode keyed with `key`, which must be 16 bytes.
    init(key: [UInt8]) throws(AESSIVError) {
        aes = try AESContext(mode: "ECB", key: key)
        stream = .allocate(byteCount: Self.chunkLength, alignment: 16)
    }

    deinit {
        stream.deallocate()
    }

    /// Writes `input` exclusive-or the key stream from counter block `counter` to `output` (as many
    /// bytes as `input`, at least that many in `output`): encryption and decryption alike. With no
    /// `input`, the key stream itself fills `output` (``KeystreamRandom``). The caller empties the
    /// error queue first (once per AES-SIV message).
    func apply(counter: SIVBlock, _ input: UnsafeRawBufferPointer?, to output: UnsafeMutableRawBufferPointer)
        throws(AESSIVError)
    {
        let count = input?.count ?? output.count
        guard output.count >= count else {
            throw .cryptoFailure("counter mode: \(output.count) bytes of room for \(count)")
        }
        var (high, low) = (counter.high, counter.low)
        var offset = 0
        while offset < count {
            let length = min(Self.chunkLength, count - offset)
            let streamLength = (length + 15) / 16 * 16
            for start in stride(from: 0, to: streamLength, by: 16) {
                stream.storeBytes(of: high.bigEndian, toByteOffset: start, as: UInt64.self)
                stream.storeBytes(of: low.bigEndian, toByteOffset: start + 8, as: UInt64.self)
                // The 128-bit counter's increment, modulo 2¹²⁸.
                low &+= 1
                if low == 0 { high &+= 1 }
            }
            guard aes.encrypt(stream.baseAddress, to: stream.baseAddress, count: streamLength) else {
                throw .cryptoFailure(OpenSSLErrorQueue.reason(or: "EVP_EncryptUpdate (AES-128-ECB) failed"))
            }
            guard let input else {
                UnsafeMutableRawBufferPointer(rebasing: output[offset..<(offset + length)])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: stream[..<length]))
                offset += length
                continue
            }
            // Eight bytes at a time, then the tail.
            let words = length / 8 * 8
            for index in stride(from: 0, to: words, by: 8) {
                let word =
                    input.loadUnaligned(fromByteOffset: offset + index, as: UInt64.self)
                    ^ stream.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                output.storeBytes(of: word, toByteOffset: offset + index, as: UInt64.self)
            }
            for index in words..<length {
                output[offset + index] = input[offset + index] ^ stream[index]
            }
            offset += length
        }
    }
}
