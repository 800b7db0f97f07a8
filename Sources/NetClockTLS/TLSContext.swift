import COpenSSL
import NetClockPlatform

/// One OpenSSL `SSL_CTX`, freed with the instance (each `SSL` made from it holds a reference of
/// its own).
///
/// This module makes client contexts only (``client(_:)``). The loopback test servers make their
/// server contexts themselves (NetClockTestSupport) with ``init(method:keepingAlive:)`` and run
/// them through the same engine (``TLSConnection/serverHandshake(over:context:timeout:isAbandoned:)``),
/// so no server code ships in this module.
package final class TLSContext {
    /// The `SSL_CTX`, for configuring it before its first connection.
    package let pointer: OpaquePointer
    /// Whatever the context's callbacks read (a server's ALPN choice), kept alive with it.
    private let callbackState: AnyObject?

    /// A context for `method` (such as `TLS_client_method()`); `callbackState` lives as long as the
    /// context.
    /// - Throws: ``TLSError/Code/configuration`` when OpenSSL cannot make one.
    package init(method: OpaquePointer?, keepingAlive callbackState: AnyObject? = nil) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let method, let context = SSL_CTX_new(method) else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_CTX_new failed"))
        }
        self.pointer = context
        self.callbackState = callbackState
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// A client context: minimum version, peer verification against `trustRoots`, the ALPN offer.
    static func client(_ configuration: TLSClientConfiguration) throws(TLSError) -> TLSContext {
        let alpn = try ALPNProtocolList(configuration.applicationProtocols)
        let context = try TLSContext(method: TLS_client_method())
        try context.setVersions(minimum: configuration.minimumVersion, maximum: nil)
        switch configuration.trustRoots {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context.pointer) == 1 else {
                throw TLSError(
                    .configuration, OpenSSLErrorQueue.reason(or: "cannot load the system trust store"))
            }
        case .caFile(let path):
            // OpenSSL opens the file blocking: a FIFO there would hang the handshake for ever.
            if let problem = FileSystem.notARegularFile(atPath: path) {
                throw TLSError(.configuration, "cannot load CA file: \(problem)")
            }
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

    /// Sets the lowest and (when given) highest protocol versions.
    /// - Throws: ``TLSError/Code/configuration`` when OpenSSL refuses one.
    package func setVersions(minimum: TLSProtocolVersion, maximum: TLSProtocolVersion?) throws(TLSError) {
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
