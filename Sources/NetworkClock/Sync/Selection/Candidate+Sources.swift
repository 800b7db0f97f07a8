import HTTPTime
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

/// Where each source kind's evidence becomes a candidate: once, from its own measurement.
extension Candidate {
    /// An NTP or NTS burst's evidence: the intersection of its samples' intervals (`estimate`),
    /// voted with at the minimum-delay sample's round trip; NTS samples are authenticated (every
    /// reply's authenticator verified) and rest on the key exchange's certificates.
    init(
        burst estimate: BurstEstimate, best: NTPSample, name: String, kind: Kind,
        certificates: [CertificateValidity]
    ) {
        self.init(
            index: 0, name: name, kind: kind, interval: estimate.interval, delay: best.delay,
            isAuthenticated: kind == .nts, certificates: certificates)
    }

    /// An HTTP(S) measurement: never authenticated, resting on the certificates of its TLS
    /// connection (none over `http://`).
    init(http measurement: HTTPTimeMeasurement) {
        self.init(
            index: 0, name: measurement.url.absoluteString,
            kind: measurement.url.scheme?.lowercased() == "https" ? .https : .http,
            interval: measurement.interval, delay: measurement.roundTripDelay, isAuthenticated: false,
            certificates: measurement.certificateChain)
    }

    /// A Roughtime server's validly signed reply (its interval carried to the query's last reply):
    /// authenticated, resting on no certificate; nil without a valid reply.
    init?(roughtime report: RoughtimeServerReport) {
        guard let interval = report.interval else { return nil }
        self.init(
            index: 0, name: report.name, kind: .roughtime, interval: interval,
            delay: report.roundTrip ?? .zero,
            isAuthenticated: true, certificates: [])
    }
}
