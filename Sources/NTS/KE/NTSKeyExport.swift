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
