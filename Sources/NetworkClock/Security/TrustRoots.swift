import NetClockTLS

extension NetworkClock {
    /// Whom the TLS connections of NTS-KE and `https://` time requests trust to vouch for a
    /// server's certificate.
    public enum TrustRoots: Hashable, Sendable, CustomStringConvertible {
        /// The system's trust store (OpenSSL's default paths, `/etc/ssl/certs` on Debian).
        case system
        /// Only the CA certificates in this PEM file (a private or test CA).
        case certificateFile(String)

        /// `system trust store` or `CA file PATH`.
        public var description: String {
            switch self {
            case .system: return "system trust store"
            case .certificateFile(let path): return "CA file \(path)"
            }
        }
    }
}

extension NetworkClock.TrustRoots {
    /// The TLS layer's trust roots.
    var tls: TLSClientConfiguration.TrustRoots {
        switch self {
        case .system: return .system
        case .certificateFile(let path): return .caFile(path)
        }
    }
}
