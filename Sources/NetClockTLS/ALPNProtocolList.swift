/// A list of application protocol names in ALPN's wire form (RFC 7301 §3.1): each name preceded
/// by its length in one byte.
package struct ALPNProtocolList {
    /// The wire form.
    package let wire: [UInt8]

    /// The list of `names`.
    /// - Throws: ``TLSError/Code/configuration`` for an empty name or one over 255 bytes.
    package init(_ names: [String]) throws(TLSError) {
        var wire: [UInt8] = []
        for name in names {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError(
                    .configuration, "an ALPN protocol name must be 1 to 255 bytes, not \(bytes.count)")
            }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        self.wire = wire
    }

    /// The names in a wire-form list; nil when the lengths do not add up.
    package static func names(inWire wire: UnsafeBufferPointer<UInt8>) -> [[UInt8]]? {
        var names: [[UInt8]] = []
        var index = 0
        while index < wire.count {
            let length = Int(wire[index])
            let start = index + 1
            guard length > 0, start + length <= wire.count else { return nil }
            names.append(Array(wire[start..<start + length]))
            index = start + length
        }
        return names
    }
}
