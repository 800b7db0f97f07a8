import NetClockPlatform
import NetworkClock
import SNTP

/// One NTP source (one address of one server) in the `servers` array.
///
/// `stratum`, `leap`, `refid`, `offset` and `delay` are always there (`null` without a sample); the
/// rest of the reply's figures only with a sample; `kiss_code` only after a Kiss-o'-Death.
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
    var samples: [SampleJSON]

    enum CodingKeys: String, CodingKey {
        case host, address, status, reason, stratum, leap, refid, offset, delay, precision, jitter, samples
        case errorBound = "error_bound"
        case rootDelay = "root_delay"
        case rootDispersion = "root_dispersion"
        case kissCode = "kiss_code"
    }

    /// The entry for `report`.
    init(_ report: SourceReport) {
        host = report.server.description
        address = Nullable(report.address?.description)
        status = report.status.rawValue
        reason = Nullable(report.reason)
        let best = report.best
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
            jitter = Nullable(report.query?.jitter?.secondsDouble)
        }
        kissCode = report.query?.kissCode?.rawValue
        samples = SampleJSON.samples(of: report)
    }
}
