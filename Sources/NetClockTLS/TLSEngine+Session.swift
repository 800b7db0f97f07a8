import COpenSSL

/// What the session of a ``TLSEngine`` is and agreed on — the peer's name to check, ALPN,
/// the version, exported keys — read straight from its `SSL`, without any I/O.
extension TLSEngine {
    /// Sets the name or address the server's certificate must carry, and SNI for a name.
    func expectPeer(named name: String) throws(TLSError) {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw TLSError(.configuration, "the server name must be a non-empty string without NUL bytes")
        }
        OpenSSLErrorQueue.clear()
        guard let parameters = SSL_get0_param(ssl) else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_get0_param failed"))
        }
        if X509_VERIFY_PARAM_set1_ip_asc(parameters, name) == 1 { return }
        // Not an address: a host name, checked against the certificate and sent as SNI.
        OpenSSLErrorQueue.clear()
        guard SSL_set1_host(ssl, name) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "cannot check for the host name \(name)"))
        }
        guard netclock_SSL_set_tlsext_host_name(ssl, name) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "cannot send the server name \(name)"))
        }
    }

    /// The ALPN protocol agreed on, if any.
    var negotiatedProtocol: String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }

    /// The protocol version agreed on.
    var protocolVersion: TLSProtocolVersion { TLSProtocolVersion(rawValue: SSL_version(ssl)) }

    /// `SSL_export_keying_material`.
    func exportKeyingMaterial(label: String, context: [UInt8]?, length: Int) throws(TLSError) -> [UInt8] {
        guard (1...4096).contains(length) else {
            throw TLSError(.keyExport, "cannot export \(length) bytes (1 to 4096)")
        }
        let labelBytes = Array(label.utf8)
        var output = [UInt8](repeating: 0, count: length)
        OpenSSLErrorQueue.clear()
        let result = output.withUnsafeMutableBufferPointer { out in
            SSL_export_keying_material(
                ssl, out.baseAddress, length, label, labelBytes.count, context ?? [], context?.count ?? 0,
                context == nil ? 0 : 1)
        }
        guard result == 1 else {
            throw TLSError(.keyExport, OpenSSLErrorQueue.reason(or: "SSL_export_keying_material failed"))
        }
        return output
    }
}
