import COpenSSL

/// Against which time one handshake checks the validity periods (`notBefore`…`notAfter`) of the
/// server's certificate chain; the chain, the name, the purpose and every signature are verified
/// whatever it is. Each sync picks it by the user's `NetworkClock.CertificateTimePolicy` and
/// reports it as `SyncReport.CertificateCheck`.
package enum CertificateTime: Hashable, Sendable, CustomStringConvertible {
    /// The machine's wall clock (OpenSSL's default; chrony's default behaviour).
    case wallClock
    /// This instant, in seconds since 1970 (from trusted time: an authenticated anchor, Roughtime).
    case at(secondsSince1970: Int64)
    /// No validity check at the handshake (`X509_V_FLAG_NO_CHECK_TIME`): a cold start without
    /// trusted time, whose answer is accepted only once the chain is valid at the time it gave
    /// (``CertificateValidity/isValid(from:to:)``).
    case unchecked

    /// `wall clock`, `at 1796040000` or `unchecked`.
    package var description: String {
        switch self {
        case .wallClock: return "wall clock"
        case .at(let seconds): return "at \(seconds)"
        case .unchecked: return "unchecked"
        }
    }

    /// Sets this choice on `ssl`'s verification parameters, before its handshake.
    func apply(to ssl: OpaquePointer) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let parameters = SSL_get0_param(ssl) else {
            throw TLSError(.configuration, OpenSSLErrorQueue.reason(or: "SSL_get0_param failed"))
        }
        switch self {
        case .wallClock:
            break
        case .at(let seconds):
            X509_VERIFY_PARAM_set_time(parameters, time_t(clamping: seconds))
        case .unchecked:
            guard X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_NO_CHECK_TIME)) == 1 else {
                throw TLSError(
                    .configuration, OpenSSLErrorQueue.reason(or: "cannot turn off the certificate time check")
                )
            }
        }
    }
}

/// The validity period of one certificate of a verified chain, in seconds since 1970.
package struct CertificateValidity: Hashable, Sendable, CustomStringConvertible {
    /// The first second the certificate is valid.
    package var notBefore: Int64
    /// The last second the certificate is valid.
    package var notAfter: Int64
    /// The subject, for reports (`CN=localhost`).
    package var subject: String

    /// A period.
    package init(notBefore: Int64, notAfter: Int64, subject: String) {
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.subject = subject
    }

    /// Whether the certificate is valid at every instant from `earliest` to `latest` (seconds
    /// since 1970, fractions included): the one validity rule, every check below is this one.
    /// `notAfter` is the last valid second, so validity ends with it, one second after its start.
    package func isValid(from earliest: Double, to latest: Double) -> Bool {
        Double(notBefore) <= earliest && latest <= Double(notAfter) + 1
    }

    /// Whether the certificate is valid at the instant `seconds` since 1970.
    package func isValid(at seconds: Int64) -> Bool {
        isValid(from: Double(seconds), to: Double(seconds))
    }

    /// Whether the certificate is valid at some instant from `earliest` to `latest`: false only
    /// when its whole validity lies outside them.
    package func isValid(somewhereFrom earliest: Double, to latest: Double) -> Bool {
        Double(notBefore) <= latest && earliest <= Double(notAfter) + 1
    }

    /// Whether the certificate's validity begins or ends from `earliest` to `latest`: valid at one
    /// end of them, perhaps not at the other. Yields the edge (`begins` or `ends`) and its second.
    package func edges(from earliest: Double, to latest: Double) -> [(edge: String, seconds: Int64)] {
        [("begins", notBefore), ("ends", notAfter)].filter { earliest...latest ~= Double($0.1) }
    }

    /// `subject valid notBefore…notAfter` (seconds since 1970).
    package var description: String { "\(subject) valid \(notBefore)…\(notAfter)" }

    /// The periods of the chain `ssl` verified, leaf first (empty before a handshake, or for a
    /// server that sent no certificate).
    static func verifiedChain(of ssl: OpaquePointer) -> [CertificateValidity] {
        guard let chain = SSL_get0_verified_chain(ssl) else { return [] }
        let stack = OpaquePointer(UnsafeRawPointer(chain))
        let count = OPENSSL_sk_num(stack)
        guard count > 0 else { return [] }
        var periods: [CertificateValidity] = []
        for index in 0..<count {
            guard let raw = OPENSSL_sk_value(stack, index) else { continue }
            let certificate = OpaquePointer(raw)
            guard let notBefore = seconds(X509_get0_notBefore(certificate)),
                let notAfter = seconds(X509_get0_notAfter(certificate))
            else { continue }
            periods.append(
                CertificateValidity(
                    notBefore: notBefore, notAfter: notAfter, subject: subject(of: certificate)))
        }
        return periods
    }

    /// An ASN.1 time as seconds since 1970 (UTC), through `ASN1_TIME_to_tm`.
    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        let days = daysSince1970(
            year: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: Int64(parts.tm_mday))
        return days * 86_400 + Int64(parts.tm_hour) * 3_600 + Int64(parts.tm_min) * 60 + Int64(parts.tm_sec)
    }

    /// The days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The certificate's subject as one line (`CN=localhost`), or empty.
    private static func subject(of certificate: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(certificate),
            let text = X509_NAME_oneline(name, nil, 0)
        else { return "" }
        defer { CRYPTO_free(text, #fileID, #line) }
        return String(cString: text)
    }
}
