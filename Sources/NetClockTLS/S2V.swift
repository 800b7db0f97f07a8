/// RFC 5297's S2V ("string to vector", §2.4): the synthetic IV of AES-SIV, computed by hand on
/// ``AESCMAC``.
///
/// ``AESSIV`` needs it for an empty plaintext, for which OpenSSL 3.0's `AES-128-SIV` produces no
/// tag (upstream issues 17268 and 26580); for any other input it equals OpenSSL's tag, which the
/// tests check.
enum S2V {
    /// S2V over `components` (the associated-data items, nonce last) followed by `plaintext`, keyed
    /// with the MAC half of the AES-SIV key (16 bytes).
    static func vector(macKey: [UInt8], components: [[UInt8]], plaintext: [UInt8]) throws(AESSIVError)
        -> [UInt8]
    {
        let cmac = try AESCMAC(key: macKey)
        var d = try cmac.tag([UInt8](repeating: 0, count: AESCMAC.blockLength))
        for component in components {
            d = xor(double(d), try cmac.tag(component))
        }
        if plaintext.count >= AESCMAC.blockLength {
            var t = plaintext
            let start = t.count - AESCMAC.blockLength
            for index in 0..<AESCMAC.blockLength { t[start + index] ^= d[index] }
            return try cmac.tag(t)
        }
        var padded = plaintext
        padded.append(0x80)
        padded += [UInt8](repeating: 0, count: AESCMAC.blockLength - padded.count)
        return try cmac.tag(xor(double(d), padded))
    }

    /// Doubling in GF(2¹²⁸) (`dbl`, RFC 5297 §2.3): a left shift by one bit, and `0x87` folded into
    /// the last byte when the top bit was set.
    static func double(_ block: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: block.count)
        for index in block.indices {
            let carry = index + 1 < block.count ? block[index + 1] >> 7 : 0
            result[index] = block[index] << 1 | carry
        }
        if let first = block.first, first & 0x80 != 0, let last = result.indices.last {
            result[last] ^= 0x87
        }
        return result
    }

    /// The bytewise exclusive or of two blocks of equal length.
    private static func xor(_ lhs: [UInt8], _ rhs: [UInt8]) -> [UInt8] {
        zip(lhs, rhs).map { $0 ^ $1 }
    }
}
