import TimeValues

/// A cold start's certificate rule: no validity period was checked at the handshake (there was no
/// trusted time), so every certificate a candidate rests on must be valid over the whole interval
/// the candidates agree on; one that is not makes its candidate a falseticker.
struct CertificateValidityCheck: AgreementCheck {
    func rejections(among candidates: [Candidate], agreed: TrueTimeInterval) -> [Int: Rejection] {
        let (earliest, latest) = (agreed.earliest.secondsDouble, agreed.latest.secondsDouble)
        var rejected: [Int: Rejection] = [:]
        for candidate in candidates {
            guard
                let outside = candidate.certificates.first(where: { !$0.isValid(from: earliest, to: latest) })
            else { continue }
            rejected[candidate.index] = .falseticker(
                "its certificate \(outside.subject) is not valid over the time the sources agree on "
                    + "(\(ISO8601.format(agreed.midpoint, fractionDigits: 0)) ± \(agreed.radius.formattedSeconds);"
                    + " checked without trusted time)")
        }
        return rejected
    }
}
