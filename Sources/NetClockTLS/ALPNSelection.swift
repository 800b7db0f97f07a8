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
