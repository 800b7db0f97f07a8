extension NTPPacket {
    /// The 32-bit reference identifier. Its meaning depends on the stratum (RFC 5905 §7.3):
    /// a four-character ASCII code for stratum 0 (a kiss code) and 1 (a reference clock such as `GPS`),
    /// and for stratum 2 and above the IPv4 address of the upstream server, or the first four bytes of
    /// the MD5 hash of its IPv6 address.
    public struct ReferenceID: RawRepresentable, Hashable, Sendable {
        /// The 32-bit wire value, big-endian as on the wire (first byte in the high bits).
        public var rawValue: UInt32

        /// Creates a reference ID from its wire value.
        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// Creates a reference ID from up to four ASCII characters, padded with zero bytes.
        public init(ascii code: String) {
            var value: UInt32 = 0
            let bytes = Array(code.utf8.prefix(4))
            for index in 0..<4 {
                value = value << 8 | UInt32(index < bytes.count ? bytes[index] : 0)
            }
            self.rawValue = value
        }

        /// The four bytes in wire order.
        public var bytes: [UInt8] {
            [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) }
        }

        /// The ID read as an ASCII code with trailing zero bytes and spaces removed, or nil when it
        /// contains bytes that are not printable ASCII.
        public var asciiCode: String? {
            var bytes = self.bytes
            while let last = bytes.last, last == 0 || last == 0x20 { bytes.removeLast() }
            guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// The ID read as a dotted-quad IPv4 address.
        public var ipv4: String {
            bytes.map { String($0) }.joined(separator: ".")
        }

        /// How to show this ID for a packet of the given stratum: the ASCII code for strata 0 and 1
        /// (falling back to hex when not printable), a dotted quad otherwise. For stratum ≥ 2 the value
        /// may also be an IPv6 address hash, which cannot be told apart from an IPv4 address.
        public func display(stratum: Stratum) -> String {
            if stratum.rawValue <= 1 {
                return asciiCode ?? hex
            }
            return ipv4
        }

        /// The ID as eight hexadecimal digits prefixed with `0x`.
        public var hex: String {
            let digits = String(rawValue, radix: 16)
            return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
        }
    }
}
