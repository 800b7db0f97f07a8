extension FakeNTSServer {
    /// How a fake NTS server misbehaves. Every hostile case breaks exactly one rule, so a strict
    /// client rejects it for one specific reason; everything else stays correct.
    package enum Behaviour: Hashable, Sendable {
        /// A correct NTS server (RFC 8915).
        case normal

        // MARK: NTP side (the NTS-KE exchange stays correct)

        /// The reply's authenticator has one bit of its SIV tag flipped: it fails verification with
        /// the S2C key.
        case badAuthenticator
        /// The reply echoes a Unique Identifier other than the request's (correctly authenticated).
        case wrongUniqueIdentifier
        /// The reply has no Unique Identifier field (correctly authenticated).
        case missingUniqueIdentifier
        /// The reply is a plain 48-byte SNTP packet without extension fields: a downgrade.
        case noExtensionFields
        /// Every NTS request is answered with an NTS NAK (RFC 8915 §5.7): a Kiss-o'-Death with
        /// stratum 0 and reference ID `NTSN`, the Unique Identifier echoed, no authenticator.
        case nak
        /// The reply is authenticated but its encrypted part holds no new cookies.
        case noNewCookies
        /// The reply's first extension field (the Unique Identifier) claims a length of 65 532
        /// bytes, far beyond the end of the packet.
        case oversizedExtensionField
        /// The reply is cut 8 bytes short, inside its last extension field (the authenticator).
        case truncatedExtensionField

        // MARK: NTS-KE side (the NTP side stays correct for whatever cookies a client gets)

        /// The NTS-KE response carries no New Cookie record.
        case keNoCookies
        /// The NTS-KE listener allows only TLS 1.2 (RFC 8915 §3 requires TLS 1.3).
        case keTLS12Only
        /// The TLS handshake finishes without agreeing on ALPN `ntske/1`.
        case keNoALPN
        /// The NTS-KE listener serves this certificate chain and key instead of the configured one:
        /// see ``wrongNameCertificate(_:)``, ``expiredCertificate(_:)`` and
        /// ``selfSignedCertificate(_:)``.
        case keCertificate(chainFile: String, keyFile: String)
        /// The NTS-KE response carries a record of unknown type 0x4321 with the critical bit set.
        case keCriticalUnknownRecord
        /// The NTS-KE response is an Error record with `code` (0 unrecognized critical record, 1 bad
        /// request, 2 internal server error), then End of Message.
        case keErrorRecord(code: UInt16)
        /// The NTS-KE response is correct but carries a Warning record with `code`.
        case keWarningRecord(code: UInt16)
        /// The NTS-KE response is 70 000 bytes long: after Next Protocol and AEAD come two
        /// non-critical records of an unknown type with 35 000-byte bodies, then the usual records.
        case keOversizedResponse
        /// The NTS-KE response stops in the middle of its first New Cookie record; the server then
        /// closes the TLS connection properly (close_notify), so the fault is in the records alone.
        case keTruncatedRecords
        /// The NTS-KE response names `server` in an NTPv4 Server Negotiation record (when not nil)
        /// and `port` in the Port Negotiation record (when not nil, instead of the server's own NTP
        /// port): a redirection a strict client may refuse.
        case keServerNegotiation(server: String?, port: UInt16?)

        /// Serves the test certificate for `wrong.example` (issued by the test CA).
        package static func wrongNameCertificate(_ certificates: TestCertificates) -> Behaviour {
            .keCertificate(chainFile: certificates.wrongNameCertificate, keyFile: certificates.serverKey)
        }

        /// Serves the test certificate whose validity ended before it began (issued by the test CA).
        package static func expiredCertificate(_ certificates: TestCertificates) -> Behaviour {
            .keCertificate(chainFile: certificates.expiredCertificate, keyFile: certificates.serverKey)
        }

        /// Serves the self-signed test certificate for the right names, which no client trusts.
        package static func selfSignedCertificate(_ certificates: TestCertificates) -> Behaviour {
            .keCertificate(chainFile: certificates.selfSignedCertificate, keyFile: certificates.selfSignedKey)
        }
    }
}
