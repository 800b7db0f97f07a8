import NetClockPlatform
import NetworkClock
import SNTP

/// The human-readable output of `query`, `sync` and `watch`.
enum ReportText {
    /// One line per source, then the result.
    static func report(_ report: SyncReport) -> String {
        var lines = report.sources.map(source) + report.httpSources.map(http)
        lines.append(
            "time \(ISO8601.format(report.trueTime, fractionDigits: 6))  offset \(report.offset.signedFormattedSeconds)"
                + " ± \(report.errorBound.formattedSeconds)  (\(report.source), \(report.server)"
                + (report.isAuthenticated ? ", authenticated)" : ")"))
        if report.isDowngraded {
            lines.append(
                "downgrade: NTS servers were configured but only unauthenticated sources answered"
                    + " (allowed by --allow-downgrade)")
        }
        return lines.joined(separator: "\n")
    }

    static func source(_ report: SyncReport.NTPSource) -> String {
        var place = report.address?.description ?? report.server.description
        if report.usesNTS {
            place += report.isAuthenticated ? " [NTS, authenticated]" : " [NTS]"
        }
        guard let best = report.best, let query = report.query else {
            return "\(place)  \(report.status)  \(report.reason ?? "")"
        }
        let jitter = query.jitter.map { ", jitter \($0.formattedSeconds)" } ?? ""
        var line =
            "\(place)  offset \(best.offset.signedFormattedSeconds)  delay \(best.delay.formattedSeconds)"
        line += "  ±\(best.errorBound.formattedSeconds)  stratum \(best.reply.stratum.rawValue)"
        line += "  refid \(best.reply.referenceID.display(stratum: best.reply.stratum))"
        line +=
            "  leap \(best.reply.leap.name)  (\(query.samples.count)/\(query.exchanges.count) samples\(jitter))"
        line += "  \(report.status)"
        if let reason = report.reason, report.status != .selected, report.status != .survivor {
            line += " (\(reason))"
        }
        return line
    }

    static func http(_ report: SyncReport.HTTPSource) -> String {
        guard let offset = report.offset, let bound = report.errorBound else {
            return "\(report.url)  \(report.status)  \(report.reason ?? "")"
        }
        return
            "\(report.url)  offset \(offset.signedFormattedSeconds)  ±\(bound.formattedSeconds)  (\(report.kind ?? "http"),"
            + " \(report.requests.count) requests)  \(report.status)"
    }
}
