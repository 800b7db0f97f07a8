/// The client's NTS-KE request (RFC 8915 §4): Next Protocol NTPv4, AEAD AES-SIV-CMAC-256, End of
/// Message, every one with the critical bit set.
package enum NTSKERequest {
    /// The request's records, in order.
    package static let records: [NTSKERecord] = [
        NTSKERecord(critical: true, type: .nextProtocol, value: NTSKEConstants.ntpv4Protocol),
        NTSKERecord(critical: true, type: .aeadAlgorithm, value: NTSKEConstants.aesSIVCMAC256),
        NTSKERecord(critical: true, type: .endOfMessage),
    ]

    /// The request's wire bytes: `80 01 00 02 00 00  80 04 00 02 00 0f  80 00 00 00`.
    package static func encoded() -> [UInt8] {
        records.flatMap { $0.encoded() }
    }
}
