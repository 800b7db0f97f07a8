import NetworkClock

/// One NTP source (one address of one server) in the `servers` array.
///
/// `stratum`, `leap`, `refid`, `offset` and `delay` are always there (`null` without a sample); the
/// rest of the reply's figures only with a sample; `kiss_code` only after a Kiss-o'-Death.
///
/// The reply's figures, `offset`, `delay` and `error_bound` are the minimum-delay sample's. What
/// the source votes with is `interval`: `[lower, upper]` seconds of true − local wall clock at its
/// latest sample, the intersection of every sample's interval (`estimate: "intersection"`) or the
/// one sample's (`"min-delay"`); both `null` when the samples contradict each other
/// (`status: "inconsistent"`).
///
/// `smearing`, `smear_correction` and `smear_widening` are there only for a `--smearing-server`:
/// `interval` stays the server's own; the selection used it moved and widened by them.
struct SourceJSON: Encodable {
    var host: String
    var address: Nullable<String>
    var status: String
    var reason: Nullable<String>
    var stratum: Nullable<Int>
    var leap: Nullable<String>
    var refid: Nullable<String>
    var offset: Nullable<Double>
    var delay: Nullable<Double>
    var errorBound: Double?
    var rootDelay: Double?
    var rootDispersion: Double?
    var precision: Int?
    /// Present with a sample; `null` there when the burst had a single sample.
    var jitter: Nullable<Double>?
    var kissCode: String?
    /// Present with a sample: `intersection`, `min-delay`, or `null` when inconsistent.
    var estimate: Nullable<String>?
    /// Present with a sample: `[lower, upper]` seconds, or `null` when inconsistent.
    var interval: Nullable<[Double]>?
    var samples: [SampleJSON]
    /// Every datagram rejected in the burst (spoofed, stale, malformed…); `samples` lists at most
    /// the first eight of each request.
    var rejectedReplies: Int
    /// Whether the source's samples are authenticated (NTS).
    var authenticated: Bool
    /// Present for an NTS server: its key exchange and association.
    var nts: NTSJSON?
    /// Present (`true`) only for a server configured as smearing leap seconds (`--smearing-server`).
    var smearing: Bool?
    /// Present for a smearing server with a sample: seconds its interval's midpoint was moved onto
    /// stepping time (stepping − smeared; 0 outside the 24 h around a month's end).
    var smearCorrection: Double?
    /// Present for a smearing server with a sample: seconds the mapping added to its half-width.
    var smearWidening: Double?

    enum CodingKeys: String, CodingKey {
        case host, address, status, reason, stratum, leap, refid, offset, delay, precision, jitter, samples
        case authenticated, nts, smearing
        case smearCorrection = "smear_correction"
        case smearWidening = "smear_widening"
        case estimate, interval
        case errorBound = "error_bound"
        case rootDelay = "root_delay"
        case rootDispersion = "root_dispersion"
        case kissCode = "kiss_code"
        case rejectedReplies = "rejected_replies"
    }

    /// The entries of the NTP and NTS servers among `servers`, in order.
    static func entries(_ servers: [SyncReport.Server], certificateCheck: SyncReport.CertificateCheck?)
        -> [SourceJSON]
    {
        servers.compactMap { server in
            server.ntp.map { SourceJSON(server, $0, certificateCheck: certificateCheck) }
        }
    }

    /// The entry for `report`, an NTP or NTS server whose details are `ntp`.
    init(
        _ report: SyncReport.Server, _ ntp: SyncReport.Server.NTP,
        certificateCheck: SyncReport.CertificateCheck? = nil
    ) {
        host = report.name
        address = Nullable(report.address)
        status = report.status.rawValue
        reason = Nullable(report.reason)
        let best = ntp.best
        stratum = Nullable(best.map { Int($0.reply.stratum.rawValue) })
        leap = Nullable(best?.reply.leap.name)
        refid = Nullable(best.map { $0.reply.referenceID.display(stratum: $0.reply.stratum) })
        offset = Nullable(best?.offset.secondsDouble)
        delay = Nullable(best?.delay.secondsDouble)
        if let best {
            errorBound = best.errorBound.secondsDouble
            rootDelay = best.reply.rootDelay.duration.secondsDouble
            rootDispersion = best.reply.rootDispersion.duration.secondsDouble
            precision = Int(best.reply.precision.rawValue)
            jitter = Nullable(ntp.query?.jitter?.secondsDouble)
            let estimate = ntp.estimate
            self.estimate = Nullable(estimate?.method.rawValue)
            interval = Nullable(
                estimate.map { [$0.offset.lowerBound.secondsDouble, $0.offset.upperBound.secondsDouble] })
        }
        kissCode = ntp.query?.kissCode?.rawValue
        samples = SampleJSON.samples(of: ntp)
        rejectedReplies = ntp.query?.exchanges.reduce(0) { $0 + $1.rejectedCount } ?? 0
        authenticated = report.isAuthenticated
        nts = report.kind == .nts ? NTSJSON(ntp, certificateCheck: certificateCheck) : nil
        smearing = report.isSmearing ? true : nil
        smearCorrection = report.smearCorrection?.secondsDouble
        smearWidening = report.smearWidening?.secondsDouble
    }
}
