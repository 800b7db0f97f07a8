import COpenSSL

/// Where OpenSSL's default verify paths (what ``TLSClientConfiguration/TrustRoots/system`` loads
/// with `SSL_CTX_set_default_verify_paths`) look for CA certificates, so that state kept for the
/// system trust store can be bound to what it contains.
package enum SystemTrustStore {
    /// OpenSSL's default locations and the environment variables that override them.
    package struct Locations: Hashable, Sendable {
        /// The variable that replaces ``file`` when set (`SSL_CERT_FILE`).
        package var fileVariable: String
        /// The compiled-in CA bundle file (`/usr/lib/ssl/cert.pem` on Debian, a link to
        /// `/etc/ssl/certs/ca-certificates.crt`).
        package var file: String
        /// The variable that replaces ``directory`` when set (`SSL_CERT_DIR`).
        package var directoryVariable: String
        /// The compiled-in directory of hashed certificate names (`/usr/lib/ssl/certs`).
        package var directory: String
    }

    /// The locations compiled into the OpenSSL this process is linked with.
    package static var locations: Locations {
        Locations(
            fileVariable: String(cString: X509_get_default_cert_file_env()),
            file: String(cString: X509_get_default_cert_file()),
            directoryVariable: String(cString: X509_get_default_cert_dir_env()),
            directory: String(cString: X509_get_default_cert_dir()))
    }
}
