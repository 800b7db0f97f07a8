import NetClockTLS

/// Roughtime's Merkle tree hashing (RFC 10049 §5.3): a server signs one root for a batch of
/// requests, and each reply carries the path that proves its request is a leaf under that root.
///
/// `H` is SHA-512 truncated to the profile's hash length (32 bytes; the whole 64 for Google).
/// A leaf is `H(0x00 || request packet)` (or `|| nonce` before draft 12 and for Google); a node is
/// `H(0x01 || left || right)`.
package enum RoughtimeMerkle {
    /// The leaf of `data` (the request packet or the nonce, as the profile says).
    package static func leaf(_ data: [UInt8], profile: RoughtimeProfile) throws(RoughtimeError) -> [UInt8] {
        try hash([0x00], data, length: profile.hashLength)
    }

    /// The node above `left` and `right`.
    package static func node(_ left: [UInt8], _ right: [UInt8], profile: RoughtimeProfile)
        throws(RoughtimeError)
        -> [UInt8]
    {
        try hash([0x01], left + right, length: profile.hashLength)
    }

    /// The root that `leaf`, `index` and `path` (the concatenated sibling hashes, leaf to root)
    /// prove: bit *i* of `index` (least significant first) says whether the *i*-th sibling is on the
    /// left (1) or the right (0).
    /// - Throws: `bad_path` when `path` is not a whole number of hashes or has more than 32;
    ///   `merkle_index_out_of_range` when `index` has bits beyond the path's length.
    package static func root(
        leaf: [UInt8], index: UInt32, path: [UInt8], profile: RoughtimeProfile
    ) throws(RoughtimeError) -> [UInt8] {
        let length = profile.hashLength
        guard path.count % length == 0 else {
            throw RoughtimeError(.badPath, "PATH is \(path.count) bytes, not a multiple of \(length)")
        }
        let steps = path.count / length
        guard steps <= 32 else { throw RoughtimeError(.badPath, "PATH has \(steps) hashes (at most 32)") }
        guard steps == 32 || index >> UInt32(steps) == 0 else {
            throw RoughtimeError(
                .merkleIndexOutOfRange, "INDX \(index) does not fit a path of \(steps) hashes")
        }
        var current = leaf
        for step in 0..<steps {
            let sibling = Array(path[(step * length)..<((step + 1) * length)])
            if (index >> UInt32(step)) & 1 == 0 {
                current = try node(current, sibling, profile: profile)
            } else {
                current = try node(sibling, current, profile: profile)
            }
        }
        return current
    }

    /// `H(prefix || data)`, truncated to `length`.
    private static func hash(_ prefix: [UInt8], _ data: [UInt8], length: Int) throws(RoughtimeError)
        -> [UInt8]
    {
        do {
            return Array(try Digest.hash(.sha512, prefix, data).prefix(length))
        } catch {
            throw RoughtimeError(.cryptoFailure, error.description)
        }
    }

    /// SHA-512 of the concatenation of `parts`, truncated to `length` bytes (nonce chaining, `SRV`).
    package static func sha512(_ parts: [UInt8]..., length: Int = 64) throws(RoughtimeError) -> [UInt8] {
        do {
            return Array(try Digest.hash(.sha512, parts: parts).prefix(length))
        } catch {
            throw RoughtimeError(.cryptoFailure, error.description)
        }
    }
}
