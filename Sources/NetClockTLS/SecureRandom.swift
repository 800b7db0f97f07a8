import COpenSSL

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`: a DRBG seeded and reseeded from the kernel's
/// `getrandom(2)`, safe across `fork`), filled in one call with no system call once seeded.
package enum SecureRandom {
    /// `count` random bytes, or nil when OpenSSL cannot give them (no entropy source).
    package static func bytes(_ count: Int) -> [UInt8]? {
        guard count > 0 else { return [] }
        guard count <= Int(Int32.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return bytes
    }
}
