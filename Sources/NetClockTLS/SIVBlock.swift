/// One 16-byte block of S2V (RFC 5297 §2.3), held in place: its bytes in wire order, with the
/// doubling in GF(2¹²⁸) and the exclusive or the construction needs, without allocating.
struct SIVBlock {
    /// The bytes in wire order (a tuple: stored inline).
    private var bytes:
        (
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8
        )

    /// Sixteen zero bytes.
    static let zero = SIVBlock(high: 0, low: 0)

    /// The block whose first eight bytes are `high` and last eight `low`, both big-endian.
    init(high: UInt64, low: UInt64) {
        bytes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
    }

    /// The first 16 bytes of `raw` (which must have as many).
    init(_ raw: UnsafeRawBufferPointer) {
        self = .zero
        withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw.prefix(16))) }
    }

    /// The first eight bytes, big-endian.
    var high: UInt64 { withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) } }
    /// The last eight bytes, big-endian.
    var low: UInt64 {
        withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// `dbl` (RFC 5297 §2.3): a left shift by one bit, `0x87` folded into the last byte when the top
    /// bit was set.
    var doubled: SIVBlock {
        let (high, low) = (self.high, self.low)
        return SIVBlock(high: high << 1 | low >> 63, low: low << 1 ^ (high >> 63) * 0x87)
    }

    /// The bytewise exclusive or.
    static func ^ (lhs: SIVBlock, rhs: SIVBlock) -> SIVBlock {
        SIVBlock(high: lhs.high ^ rhs.high, low: lhs.low ^ rhs.low)
    }

    /// The bytes, read in place.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        Swift.withUnsafeBytes(of: bytes, body)
    }

    /// The bytes, written in place.
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        Swift.withUnsafeMutableBytes(of: &bytes, body)
    }

    /// The bytes as an array.
    var array: [UInt8] { withUnsafeBytes { Array($0) } }
}
