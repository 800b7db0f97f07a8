/// Validation of the NTPv4 Server Negotiation body (RFC 8915 §4.1.7): an ASCII host name (IDNs as
/// A-labels), IPv4 address or IPv6 address.
enum NTSServerName {
    /// The host in `body`, or `nil` unless it is 1–255 printable ASCII bytes without spaces
    /// (0x21–0x7E).
    static func parse(_ body: [UInt8]) -> String? {
        guard (1...NTSKEResponse.maximumServerLength).contains(body.count),
            body.allSatisfy({ (0x21...0x7E).contains($0) })
        else { return nil }
        return String(decoding: body, as: UTF8.self)
    }
}
