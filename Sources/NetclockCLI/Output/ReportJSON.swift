import NetClockPlatform
import NetworkClock
import SNTP

/// The `--json` shapes of the CLI contract (see README: "The CLI contract").
enum ReportJSON {
    /// A successful sync: `offset`, `delay`, `error_bound`, `time`, `unix`, `source`, `server`,
    /// `elapsed`, `packets_sent`, `servers`.
    static func report(_ report: SyncReport) -> JSONValue {
        .object([
            ("offset", .seconds(report.offset)),
            ("delay", .seconds(report.delay)),
            ("error_bound", .seconds(report.errorBound)),
            ("time", .string(ISO8601.format(report.trueTime, fractionDigits: 6))),
            ("unix", .number(report.trueTime.secondsDouble)),
            ("source", .string(report.source.rawValue)),
            ("server", .string(report.server)),
            ("elapsed", .seconds(report.elapsed)),
            ("packets_sent", .int(Int64(report.packetsSent))),
            ("servers", .array(report.sources.map(source))),
            ("http", .array(report.httpSources.map(http))),
        ])
    }

    /// A failed sync: `error` and the `servers` that explain it.
    static func failure(_ error: SyncError) -> JSONValue {
        .object([
            ("error", .string(error.description)),
            ("servers", .array(error.sources.map(source))),
            ("http", .array(error.httpSources.map(http))),
        ])
    }

    /// One HTTP source: `url`, `status`, `reason`, `kind`, `offset`, `error_bound`, and every request
    /// with its round trip and the offset interval it gave.
    static func http(_ report: HTTPSourceReport) -> JSONValue {
        let first = report.requests.first?.sent
        return .object([
            ("url", .string(report.url)),
            ("status", .string(report.status.rawValue)),
            ("reason", .optional(report.reason)),
            ("error_code", .optional(report.errorCode)),
            ("kind", .optional(report.kind)),
            ("offset", report.offset.map { .seconds($0) } ?? .null),
            ("error_bound", report.errorBound.map { .seconds($0) } ?? .null),
            (
                "requests",
                .array(
                    report.requests.map { request in
                        .object([
                            ("method", .string(request.method.rawValue)),
                            ("status", request.statusCode.map { .int(Int64($0)) } ?? .null),
                            ("sent", first.map { .seconds(request.sent - $0) } ?? .null),
                            ("round_trip", .seconds(request.roundTrip)),
                            ("header", .optional(request.headerName)),
                            ("value", .optional(request.headerValue)),
                            ("interval", interval(request.interval)),
                            ("combined", interval(request.combined)),
                        ])
                    })
            ),
        ])
    }

    private static func interval(_ interval: OffsetInterval?) -> JSONValue {
        guard let interval else { return .null }
        return .array([.seconds(interval.lower), .seconds(interval.upper)])
    }

    static func source(_ report: SourceReport) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("host", .string(report.server.description)),
            ("address", .optional(report.address?.description)),
            ("status", .string(report.status.rawValue)),
            ("reason", .optional(report.reason)),
        ]
        if let best = report.best {
            members += [
                ("stratum", .int(Int64(best.reply.stratum.rawValue))),
                ("leap", .string(best.reply.leap.name)),
                ("refid", .string(best.reply.referenceID.display(stratum: best.reply.stratum))),
                ("offset", .seconds(best.offset)),
                ("delay", .seconds(best.delay)),
                ("error_bound", .seconds(best.errorBound)),
                ("root_delay", .seconds(best.reply.rootDelay.duration)),
                ("root_dispersion", .seconds(best.reply.rootDispersion.duration)),
                ("precision", .int(Int64(best.reply.precision.rawValue))),
                ("jitter", report.query?.jitter.map { .seconds($0) } ?? .null),
            ]
        } else {
            members += [
                ("stratum", .null), ("leap", .null), ("refid", .null), ("offset", .null), ("delay", .null),
            ]
        }
        if let kiss = report.query?.kissCode {
            members.append(("kiss_code", .string(kiss.rawValue)))
        }
        members.append(("samples", .array(samples(of: report))))
        return .object(members)
    }

    /// Every request of the burst and every reply rejected while waiting for it.
    static func samples(of report: SourceReport) -> [JSONValue] {
        guard let query = report.query else { return [] }
        var entries: [JSONValue] = []
        for exchange in query.exchanges where exchange.nonce != .zero {
            for rejected in exchange.rejected {
                entries.append(rejectedEntry(rejected, exchange: exchange))
            }
            switch exchange.outcome {
            case .sample(let sample):
                entries.append(
                    .object(
                        timestamps(sample) + [
                            ("offset", .seconds(sample.offset)), ("delay", .seconds(sample.delay)),
                            ("error_bound", .seconds(sample.errorBound)), ("accepted", .bool(true)),
                            ("reason", .null),
                        ]))
            case .rejected(let reason):
                entries.append(
                    .object([
                        ("t1", .number(exchange.sentAt.secondsDouble)), ("accepted", .bool(false)),
                        ("reason", .string(reason.code)), ("detail", .string(reason.description)),
                    ]))
            case .timedOut:
                entries.append(
                    outcomeEntry(exchange, reason: "timeout", detail: "no valid reply before the timeout"))
            case .refused:
                entries.append(outcomeEntry(exchange, reason: "refused", detail: "ICMP port unreachable"))
            case .failed(let error):
                entries.append(outcomeEntry(exchange, reason: "error", detail: error.description))
            }
        }
        return entries
    }

    private static func timestamps(_ sample: NTPSample) -> [(String, JSONValue)] {
        let reference = sample.localReceiveTime
        return [
            ("t1", .number(sample.t1.unixTime(near: reference).secondsDouble)),
            ("t2", .number(sample.t2.unixTime(near: reference + sample.offset).secondsDouble)),
            ("t3", .number(sample.t3.unixTime(near: reference + sample.offset).secondsDouble)),
            ("t4", .number(reference.secondsDouble)),
            ("t1_ntp", .string(sample.t1.description)), ("t2_ntp", .string(sample.t2.description)),
            ("t3_ntp", .string(sample.t3.description)), ("t4_ntp", .string(sample.t4.description)),
        ]
    }

    private static func rejectedEntry(_ rejected: RejectedReply, exchange: ExchangeRecord) -> JSONValue {
        var members: [(String, JSONValue)] = [("t1", .number(exchange.sentAt.secondsDouble))]
        if let packet = rejected.packet {
            members += [
                ("t2_ntp", .string(packet.receiveTimestamp.description)),
                ("t3_ntp", .string(packet.transmitTimestamp.description)),
            ]
        }
        members += [
            ("t4", .number(rejected.receivedAt.secondsDouble)), ("accepted", .bool(false)),
            ("reason", .string(rejected.reason.code)), ("detail", .string(rejected.reason.description)),
        ]
        return .object(members)
    }

    private static func outcomeEntry(_ exchange: ExchangeRecord, reason: String, detail: String) -> JSONValue
    {
        .object([
            ("t1", .number(exchange.sentAt.secondsDouble)), ("accepted", .bool(false)),
            ("reason", .string(reason)), ("detail", .string(detail)),
        ])
    }
}
