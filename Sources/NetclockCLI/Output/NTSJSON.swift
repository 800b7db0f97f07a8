import NetworkClock

/// The `nts` object of an NTS server's entry in `servers`: where its key exchange went, the NTP
/// address used, the AEAD algorithm and the cookies held after the round.
struct NTSJSON: Encodable {
    /// The NTS-KE address (`127.0.0.1:4460`), `null` when no key exchange succeeded.
    var keServer: Nullable<String>
    /// The NTP address queried, `null` when none was reached.
    var ntpServer: Nullable<String>
    /// The AEAD algorithm (15: AES-SIV-CMAC-256), `null` without a key exchange.
    var aead: Nullable<Int>
    /// Unused cookies held after the round.
    var cookies: Int
    /// Key exchanges this round ran (0 when earlier cookies were used).
    var keyExchanges: Int
    /// The time this round's key exchange checked the certificates against (`wall_clock`,
    /// `trusted_clock`, `roughtime`, `bootstrap`); `null` when it ran none.
    var certificateTime: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case aead, cookies
        case keServer = "ke_server"
        case ntpServer = "ntp_server"
        case keyExchanges = "key_exchanges"
        case certificateTime = "certificate_time"
    }

    /// The object for an NTS source.
    init(_ report: SyncReport.Server.NTP, certificateCheck: SyncReport.CertificateCheck?) {
        certificateTime = Nullable((report.nts?.keyExchanges ?? 0) > 0 ? certificateCheck?.rawValue : nil)
        keServer = Nullable(report.keyExchangeAddress)
        ntpServer = Nullable(report.address?.description)
        aead = Nullable(report.nts?.aead.map(Int.init))
        cookies = report.nts?.cookies ?? 0
        keyExchanges = report.nts?.keyExchanges ?? 0
    }
}
