/// Numbers the NTS-KE exchange negotiates (RFC 8915 §7 IANA registries).
package enum NTSKEConstants {
    /// The Next Protocol ID of NTPv4 (§7.3).
    package static let ntpv4Protocol: UInt16 = 0
    /// AEAD_AES_SIV_CMAC_256 (RFC 5297), the one algorithm this client offers.
    package static let aesSIVCMAC256: UInt16 = 15
    /// The default NTS-KE TCP port (§7.1).
    package static let defaultKEPort: UInt16 = 4460
    /// The ALPN protocol ID of NTS-KE (§7.2).
    package static let alpn = "ntske/1"
}
