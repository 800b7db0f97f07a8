// The kernel's CSPRNG read directly, for callers that need many random bytes per packet (NTS
// requests). Kept beside Syscalls.swift, under the same platform chain.

#if canImport(Glibc)
    import CKernelClock
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// Fills `buffer` from the kernel's CSPRNG in as few calls as it takes: the vDSO's getrandom
    /// where the kernel has one (Linux 6.11 and later, no system call), else one `getrandom(2)` for
    /// up to 256 bytes once the pool is initialised (~0.4 µs for 48 bytes, where
    /// `SystemRandomNumberGenerator` makes one call per 8 bytes and OpenSSL's `RAND_bytes` costs
    /// twice as much in its DRBG's re-keying); `arc4random_buf` on Darwin. The errno when the
    /// kernel has no `getrandom` (before Linux 3.17).
    package static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Result<Void, Errno> {
        guard var next = buffer.baseAddress else { return .success(()) }
        #if canImport(Glibc)
            var left = buffer.count
            while left > 0 {
                switch valueOrErrno({ netclock_random(next, left) }) {
                case .success(let count):
                    next += count
                    left -= count
                case .failure(let error):
                    return .failure(error)
                }
            }
        #else
            arc4random_buf(next, buffer.count)
            next += buffer.count
        #endif
        return .success(())
    }
}
