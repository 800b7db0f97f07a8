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

/// Numbers the NTS-KE exchange negotiates (RFC 8915 §7 IANA registries).
package enum NTSKEConstants {
    /// The Next Protocol ID of NTPv4 (§7.3).
    package static let ntpv4Protocol: UInt16 = 0
    /// AEAD_AES_SIV_CMAC_256 (RFC 5297), the one algorithm this client offers.
    package static let aesSIVCMAC256: UInt16 = 15
    /// The ALPN protocol ID of NTS-KE (§7.2).
    package static let alpn = "ntske/1"
}

/// The TLS exporter inputs that derive the NTS keys (RFC 8915 §5.1, RFC 8446 §7.5).
package enum NTSKeyExport {
    /// The exporter label.
    package static let label = "EXPORTER-network-time-security"

    /// Which key: client-to-server (requests) or server-to-client (replies).
    package enum Direction: UInt8, Sendable {
        /// The C2S key, context byte 0x00.
        case clientToServer = 0
        /// The S2C key, context byte 0x01.
        case serverToClient = 1
    }

    /// The exporter context: Protocol ID (16 bits), AEAD ID (16 bits), direction byte; for NTPv4 and
    /// AEAD 15 it is `00 00 00 0f 00` (C2S) and `00 00 00 0f 01` (S2C).
    package static func context(
        nextProtocol: UInt16 = NTSKEConstants.ntpv4Protocol, aead: UInt16 = NTSKEConstants.aesSIVCMAC256,
        direction: Direction
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        WireBytes.append(nextProtocol, to: &bytes)
        WireBytes.append(aead, to: &bytes)
        bytes.append(direction.rawValue)
        return bytes
    }

    /// The key length of AEAD 15 (AES-SIV-CMAC-256): 32 bytes.
    package static let aesSIVKeyLength = 32
}
