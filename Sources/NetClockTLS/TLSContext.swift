import COpenSSL

/// One OpenSSL `SSL_CTX`, configured for a client or a server, freed with the instance (each
/// `SSL` made from it holds a reference of its own).
final class TLSContext {
    /// The `SSL_CTX`.
    let pointer: OpaquePointer
    /// The server's ALPN choice, which the selection callback reads; kept alive with the context.
    private let selection: ALPNSelection?

    /// A context for `method` (`TLS_client_method()` or `TLS_server_method()`).
    private init(method: OpaquePointer?, selection: ALPNSelection?) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let method, let context = SSL_CTX_new(method) else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_CTX_new failed"))
        }
        self.pointer = context
        self.selection = selection
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// A client context: minimum version, peer verification against `trustRoots`, the ALPN offer.
    static func client(_ configuration: TLSClientConfiguration) throws(TLSError) -> TLSContext {
        let alpn = try ALPNProtocolList(configuration.applicationProtocols)
        let context = try TLSContext(method: TLS_client_method(), selection: nil)
        try context.setVersions(minimum: configuration.minimumVersion, maximum: nil)
        switch configuration.trustRoots {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context.pointer) == 1 else {
                throw TLSError(
                    .configuration, OpenSSLErrorQueue.reason(or: "cannot load the system trust store"))
            }
        case .caFile(let path):
            guard SSL_CTX_load_verify_locations(context.pointer, path, nil) == 1 else {
                throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "cannot load CA file \(path)"))
            }
        }
        SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        if !alpn.wire.isEmpty {
            // Returns 0 on success, unlike most OpenSSL calls.
            guard SSL_CTX_set_alpn_protos(context.pointer, alpn.wire, UInt32(alpn.wire.count)) == 0 else {
                throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_CTX_set_alpn_protos failed"))
            }
        }
        return context
    }

    /// A server context: certificate chain and key, versions, ALPN selection (none when the list is
    /// empty), and no session tickets (nothing is resumed).
    static func server(_ configuration: TLSServerConfiguration) throws(TLSError) -> TLSContext {
        let alpn = try ALPNProtocolList(configuration.applicationProtocols)
        let selection = alpn.wire.isEmpty ? nil : ALPNSelection(alpn)
        let context = try TLSContext(method: TLS_server_method(), selection: selection)
        try context.setVersions(minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        guard SSL_CTX_use_certificate_chain_file(context.pointer, configuration.certificateChainFile) == 1
        else {
            throw TLSError(
                .configuration,
                OpenSSLErrorQueue.reason(
                    or: "cannot load certificate chain \(configuration.certificateChainFile)"))
        }
        guard
            SSL_CTX_use_PrivateKey_file(context.pointer, configuration.privateKeyFile, SSL_FILETYPE_PEM) == 1
        else {
            throw TLSError(
                .configuration,
                OpenSSLErrorQueue.reason(or: "cannot load private key \(configuration.privateKeyFile)"))
        }
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "the private key does not match the certificate")
            )
        }
        guard SSL_CTX_set_num_tickets(context.pointer, 0) == 1 else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_CTX_set_num_tickets failed"))
        }
        if let selection {
            SSL_CTX_set_alpn_select_cb(
                context.pointer, alpnSelect, Unmanaged.passUnretained(selection).toOpaque())
        }
        return context
    }

    /// Sets the lowest and (when given) highest protocol versions.
    private func setVersions(minimum: TLSProtocolVersion, maximum: TLSProtocolVersion?) throws(TLSError) {
        guard netclock_SSL_CTX_set_min_proto_version(pointer, minimum.rawValue) == 1 else {
            throw TLSError(
                .configuration, OpenSSLErrorQueue.reason(or: "cannot set the minimum version \(minimum)"))
        }
        if let maximum {
            guard netclock_SSL_CTX_set_max_proto_version(pointer, maximum.rawValue) == 1 else {
                throw TLSError(
                    .configuration, OpenSSLErrorQueue.reason(or: "cannot set the maximum version \(maximum)"))
            }
        }
    }
}

/// OpenSSL's ALPN selection callback for servers: the ``ALPNSelection`` passed as its argument
/// chooses; no match finishes the handshake without ALPN (`SSL_TLSEXT_ERR_NOACK`).
private func alpnSelect(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?, _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32,
    _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let out, let outLength, let offered, let argument else { return SSL_TLSEXT_ERR_NOACK }
    let selection = Unmanaged<ALPNSelection>.fromOpaque(argument).takeUnretainedValue()
    guard
        let (name, length) = selection.choose(
            from: UnsafeBufferPointer(start: offered, count: Int(offeredLength)))
    else { return SSL_TLSEXT_ERR_NOACK }
    out.pointee = name
    outLength.pointee = length
    return SSL_TLSEXT_ERR_OK
}
