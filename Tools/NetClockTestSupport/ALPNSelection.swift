import COpenSSL
import NetClockTLS

/// A server's ALPN choice: its protocols in preference order, kept at a stable address because
/// OpenSSL's selection callback returns a pointer into them.
final class ALPNSelection {
    /// The server's list in wire form, at an address that never moves.
    private let storage: UnsafeMutableBufferPointer<UInt8>

    /// The selection from `list` (non-empty).
    init(_ list: ALPNProtocolList) {
        storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: list.wire.count)
        _ = storage.initialize(from: list.wire)
    }

    deinit {
        storage.deallocate()
    }

    /// Makes this selection choose for `context`, which must keep it alive (it is the context's
    /// `keepingAlive` object).
    func install(on context: TLSContext) {
        SSL_CTX_set_alpn_select_cb(context.pointer, alpnSelect, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The first of the server's protocols that the client offered in `offered` (wire form): a
    /// pointer into this selection's storage and the name's length; nil when none matches or the
    /// client's list is malformed.
    func choose(from offered: UnsafeBufferPointer<UInt8>) -> (UnsafePointer<UInt8>, UInt8)? {
        guard let clientNames = ALPNProtocolList.names(inWire: offered), let base = storage.baseAddress else {
            return nil
        }
        var index = 0
        while index < storage.count {
            let length = Int(storage[index])
            let name = Array(storage[(index + 1)..<(index + 1 + length)])
            if clientNames.contains(name) {
                return (UnsafePointer(base + index + 1), UInt8(length))
            }
            index += 1 + length
        }
        return nil
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
