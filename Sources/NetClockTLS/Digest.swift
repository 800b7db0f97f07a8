import COpenSSL
import NetClockPlatform

/// One-shot message digests through OpenSSL's EVP interface: SHA-256 (binding state files to the
/// trust roots they were written under) and SHA-512 (Roughtime's Merkle tree).
package enum Digest {
    /// The digest algorithms the package uses.
    package enum Algorithm: Hashable, Sendable {
        /// SHA-256 (FIPS 180-4), 32 bytes.
        case sha256
        /// SHA-512 (FIPS 180-4), 64 bytes.
        case sha512

        /// OpenSSL's name for the algorithm.
        fileprivate var name: String {
            switch self {
            case .sha256: return "SHA256"
            case .sha512: return "SHA512"
            }
        }

        /// The length of the digest in bytes.
        package var length: Int {
            switch self {
            case .sha256: return 32
            case .sha512: return 64
            }
        }
    }

    /// The digest of the concatenation of `parts` (so callers hash prefixes and messages without
    /// copying them together).
    /// - Throws: ``DigestError`` only when OpenSSL itself fails (no such algorithm in its
    ///   providers, no memory), never because of the input.
    package static func hash(_ algorithm: Algorithm, _ parts: [UInt8]...) throws(DigestError) -> [UInt8] {
        try hash(algorithm, parts: parts)
    }

    /// The digest of the concatenation of `parts`.
    package static func hash(_ algorithm: Algorithm, parts: [[UInt8]]) throws(DigestError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let md = EVP_MD_fetch(nil, algorithm.name, nil) else {
            throw DigestError(.failed, OpenSSLErrorQueue.reason(or: "EVP_MD_fetch(\(algorithm.name)) failed"))
        }
        defer { EVP_MD_free(md) }
        guard let context = EVP_MD_CTX_new() else {
            throw DigestError(.failed, OpenSSLErrorQueue.reason(or: "EVP_MD_CTX_new failed"))
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex2(context, md, nil) == 1 else {
            throw DigestError(.failed, OpenSSLErrorQueue.reason(or: "EVP_DigestInit_ex2 failed"))
        }
        for part in parts {
            let updated = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard updated == 1 else {
                throw DigestError(.failed, OpenSSLErrorQueue.reason(or: "EVP_DigestUpdate failed"))
            }
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, Int(length) == algorithm.length else {
            throw DigestError(.failed, OpenSSLErrorQueue.reason(or: "EVP_DigestFinal_ex failed"))
        }
        return Array(output.prefix(Int(length)))
    }
}

/// OpenSSL could not compute a digest (a broken installation or no memory; never caused by input):
/// code `digest_failed` and OpenSSL's explanation.
package typealias DigestError = CodedError<DigestErrorCode>

/// What kind of failure a ``DigestError`` is: there is one.
package enum DigestErrorCode: String, ErrorCode, CaseIterable {
    /// OpenSSL could not fetch the algorithm, allocate a context or compute the digest.
    case failed = "digest_failed"
}
