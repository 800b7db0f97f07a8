/// One 16-byte block of S2V (RFC 5297 §2.3), held in place: its bytes in wire order, with the
/// doubling in GF(2¹²⁸) and the exclusive or the construction needs, without allocating.
struct SIVBlock {
    /// The bytes in wire order, as two machine words loaded from them unchanged (a tuple: stored
    /// inline, its layout fixed): the exclusive or works on words, and only ``high``, ``low`` and
    /// the doubling read them as numbers.
    private var words: (UInt64, UInt64)

    /// Sixteen zero bytes.
    static var zero: SIVBlock { SIVBlock(words: (0, 0)) }

    private init(words: (UInt64, UInt64)) {
        self.words = words
    }

    /// The block whose first eight bytes are `high` and last eight `low`, both big-endian.
    init(high: UInt64, low: UInt64) {
        words = (high.bigEndian, low.bigEndian)
    }

    /// The first 16 bytes of `raw` (which must have as many).
    init(_ raw: UnsafeRawBufferPointer) {
        words = (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// The first eight bytes, big-endian.
    var high: UInt64 { UInt64(bigEndian: words.0) }
    /// The last eight bytes, big-endian.
    var low: UInt64 { UInt64(bigEndian: words.1) }

    /// `dbl` (RFC 5297 §2.3): a left shift by one bit, `0x87` folded into the last byte when the top
    /// bit was set.
    var doubled: SIVBlock {
        let (high, low) = (self.high, self.low)
        return SIVBlock(high: high << 1 | low >> 63, low: low << 1 ^ (high >> 63) * 0x87)
    }

    /// The bytewise exclusive or (word by word: byte order does not matter to it).
    static func ^ (lhs: SIVBlock, rhs: SIVBlock) -> SIVBlock {
        SIVBlock(words: (lhs.words.0 ^ rhs.words.0, lhs.words.1 ^ rhs.words.1))
    }

    /// The bytes, read in place.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        Swift.withUnsafeBytes(of: words, body)
    }

    /// The bytes, written in place.
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        Swift.withUnsafeMutableBytes(of: &words, body)
    }

    /// The bytes as an array.
    var array: [UInt8] { withUnsafeBytes { Array($0) } }
}
