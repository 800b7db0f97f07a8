import NetworkClock
import TimeValues
import SNTP

/// One entry of a source's `samples`: a request of the burst, or a reply rejected while waiting.
///
/// Every entry has `t1`, `accepted` and `reason` (`null` when accepted). An accepted sample adds
/// `t2`–`t4`, the exact NTP timestamps `t1_ntp`–`t4_ntp`, `offset`, `delay` and `error_bound`; a
/// rejected one adds `detail`, and a rejected reply also its arrival `t4` (and `t2_ntp`/`t3_ntp`
/// when it decoded).
struct SampleJSON: Encodable {
    var t1: Double
    var t2: Double?
    var t3: Double?
    var t4: Double?
    var t1NTP: String?
    var t2NTP: String?
    var t3NTP: String?
    var t4NTP: String?
    var offset: Double?
    var delay: Double?
    var errorBound: Double?
    var accepted: Bool
    var reason: Nullable<String>
    var detail: String?

    enum CodingKeys: String, CodingKey {
        case t1, t2, t3, t4, offset, delay, accepted, reason, detail
        case t1NTP = "t1_ntp"
        case t2NTP = "t2_ntp"
        case t3NTP = "t3_ntp"
        case t4NTP = "t4_ntp"
        case errorBound = "error_bound"
    }

    /// Every request of the burst and every reply rejected while waiting for it, in order.
    static func samples(of report: SyncReport.Server.NTP) -> [SampleJSON] {
        guard let query = report.query else { return [] }
        var entries: [SampleJSON] = []
        for exchange in query.exchanges where exchange.nonce != .zero {
            for rejected in exchange.rejected {
                entries.append(SampleJSON(rejected: rejected, sentAt: exchange.sentAt))
            }
            switch exchange.outcome {
            case .sample(let sample):
                entries.append(SampleJSON(accepted: sample))
            case .rejected(let reason):
                entries.append(
                    SampleJSON(sentAt: exchange.sentAt, reason: reason.code, detail: reason.description))
            case .timedOut:
                entries.append(
                    SampleJSON(
                        sentAt: exchange.sentAt, reason: "timeout",
                        detail: "no valid reply before the timeout"))
            case .refused:
                entries.append(
                    SampleJSON(sentAt: exchange.sentAt, reason: "refused", detail: "ICMP port unreachable"))
            case .failed(let error):
                entries.append(
                    SampleJSON(sentAt: exchange.sentAt, reason: "error", detail: error.description))
            }
        }
        return entries
    }

    /// A request that ended without a sample.
    init(sentAt: UnixTime, reason: String, detail: String) {
        t1 = sentAt.secondsDouble
        accepted = false
        self.reason = Nullable(reason)
        self.detail = detail
    }

    /// A reply rejected while waiting for the request sent at `sentAt`.
    init(rejected: RejectedReply, sentAt: UnixTime) {
        self.init(sentAt: sentAt, reason: rejected.reason.code, detail: rejected.reason.description)
        t2NTP = rejected.packet?.receiveTimestamp.description
        t3NTP = rejected.packet?.transmitTimestamp.description
        t4 = rejected.receivedAt.secondsDouble
    }

    /// An accepted sample; T2 and T3 are on the server's clock, so their era is taken near it.
    init(accepted sample: NTPSample) {
        let reference = sample.localReceiveTime
        t1 = sample.t1.unixTime(near: reference).secondsDouble
        t2 = sample.t2.unixTime(near: reference + sample.offset).secondsDouble
        t3 = sample.t3.unixTime(near: reference + sample.offset).secondsDouble
        t4 = reference.secondsDouble
        t1NTP = sample.t1.description
        t2NTP = sample.t2.description
        t3NTP = sample.t3.description
        t4NTP = sample.t4.description
        offset = sample.offset.secondsDouble
        delay = sample.delay.secondsDouble
        errorBound = sample.errorBound.secondsDouble
        accepted = true
        reason = Nullable(nil)
    }
}
