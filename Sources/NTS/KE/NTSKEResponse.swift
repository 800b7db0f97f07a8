/// What an NTS-KE server agreed to (RFC 8915 §4): the protocol and AEAD algorithm, the cookies for
/// NTPv4, and where to send NTP requests when not to the NTS-KE host on port 123.
package struct NTSKEResponse: Hashable, Sendable {
    /// The most cookies a response may hand over that are kept; further ones are dropped.
    package static let maximumCookies = 16
    /// The longest cookie accepted, in bytes.
    package static let maximumCookieLength = 1024
    /// The longest NTPv4 Server Negotiation string, in bytes.
    package static let maximumServerLength = 255

    /// The negotiated Next Protocol ID (always NTPv4, 0, once parsed).
    package var nextProtocol: UInt16
    /// The negotiated AEAD algorithm ID.
    package var aead: UInt16
    /// The cookies, in the order received (at most ``maximumCookies``).
    package var cookies: [[UInt8]]
    /// The NTP server named by an NTPv4 Server Negotiation record, if any.
    package var server: String?
    /// The NTP port named by an NTPv4 Port Negotiation record, if any.
    package var port: UInt16?
    /// The codes of the Warning records, in order.
    package var warnings: [UInt16]

    /// Creates a response value.
    package init(
        nextProtocol: UInt16 = NTSKEConstants.ntpv4Protocol, aead: UInt16 = NTSKEConstants.aesSIVCMAC256,
        cookies: [[UInt8]], server: String? = nil, port: UInt16? = nil, warnings: [UInt16] = []
    ) {
        self.nextProtocol = nextProtocol
        self.aead = aead
        self.cookies = cookies
        self.server = server
        self.port = port
        self.warnings = warnings
    }

    /// The server side: the response's records, critical bits as RFC 8915 §4.1 requires (Next
    /// Protocol, AEAD, Warning and End critical; server, port and cookies not), in the order
    /// Next Protocol, AEAD, server, port, warnings, cookies, End of Message.
    ///
    /// Throws ``NTSError/Code/unencodable`` when a value does not fit its record.
    package func records() throws(NTSError) -> [NTSKERecord] {
        var records = [
            NTSKERecord(critical: true, type: .nextProtocol, value: nextProtocol),
            NTSKERecord(critical: true, type: .aeadAlgorithm, value: aead),
        ]
        if let server {
            records.append(try NTSKERecord(critical: false, type: .ntpServer, body: Array(server.utf8)))
        }
        if let port {
            records.append(NTSKERecord(critical: false, type: .ntpPort, value: port))
        }
        for warning in warnings {
            records.append(NTSKERecord(critical: true, type: .warning, value: warning))
        }
        for cookie in cookies {
            records.append(try NTSKERecord(critical: false, type: .newCookie, body: cookie))
        }
        records.append(NTSKERecord(critical: true, type: .endOfMessage))
        return records
    }

    /// The server side: the response's wire bytes (see ``records()``).
    package func encoded() throws(NTSError) -> [UInt8] {
        try records().flatMap { $0.encoded() }
    }
}

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
