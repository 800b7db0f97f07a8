/// Big-endian helpers shared by the NTS codecs. Reads are bounds-checked by their callers.
enum WireBytes {
    /// The big-endian 16-bit value at `offset`, or `nil` when fewer than two bytes remain.
    static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// Appends `value` big-endian.
    static func append(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// `count` rounded up to a multiple of 4 (callers pass counts far below `Int.max`).
    static func padded4(_ count: Int) -> Int {
        (count &+ 3) & ~3
    }
}
