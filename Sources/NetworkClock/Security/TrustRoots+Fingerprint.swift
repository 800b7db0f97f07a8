#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import NetClockTLS

extension NetworkClock.TrustRoots {
    /// Why no fingerprint could be made.
    package struct FingerprintError: Error, Hashable, Sendable {
        /// A sentence for people.
        package var reason: String
    }

    /// The largest CA file or bundle hashed (Debian's whole bundle is about 220 KB).
    static let maximumFingerprintedSize = 16 << 20

    /// A SHA-256, in lower-case hex, of what these roots trust, so that state kept under them
    /// (NTS keys and cookies) is used again only under the same trust:
    ///
    /// - ``certificateFile(_:)``: the file's contents. Its path is not part of it: moving the
    ///   file changes nothing, editing or replacing its certificates does. An unreadable file
    ///   gives no fingerprint (nothing kept under it can be checked).
    /// - ``system``: the CA bundle OpenSSL's default verify paths load (`SSL_CERT_FILE` when
    ///   set, else the compiled-in file, on Debian `/usr/lib/ssl/cert.pem` →
    ///   `/etc/ssl/certs/ca-certificates.crt`): its path and contents, or that it cannot be read;
    ///   and the path of the hashed certificate directory (`SSL_CERT_DIR` or compiled in). The
    ///   directory's contents are not hashed: `update-ca-certificates`, which every change of
    ///   the system store goes through on Debian, rewrites the bundle, and hashing hundreds of
    ///   files at every start would cost more than the key exchange it saves.
    package func fingerprint(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Result<String, FingerprintError>
    {
        var parts: [[UInt8]] = [Array("netclock trust roots 1\u{0}".utf8)]
        switch self {
        case .certificateFile(let path):
            switch FileSystem.readFile(atPath: path, limit: Self.maximumFingerprintedSize) {
            case .success(let contents): parts += [Array("ca-file\u{0}".utf8), contents]
            case .failure(let failure):
                return .failure(FingerprintError(reason: "the CA file cannot be read (\(failure.reason))"))
            }
        case .system:
            let locations = SystemTrustStore.locations
            let file = environment[locations.fileVariable] ?? locations.file
            let directory = environment[locations.directoryVariable] ?? locations.directory
            parts += [Array("system\u{0}\(file)\u{0}\(directory)\u{0}".utf8)]
            switch FileSystem.readFile(atPath: file, limit: Self.maximumFingerprintedSize) {
            case .success(let contents): parts += [Array("bundle\u{0}".utf8), contents]
            case .failure(let failure): parts += [Array("unreadable \(failure.code.rawValue)".utf8)]
            }
        }
        do {
            return .success(NTSCookieFile.Hex.encode(try Digest.hash(.sha256, parts: parts)))
        } catch {
            return .failure(FingerprintError(reason: error.description))
        }
    }
}
