import NetworkClock

/// The human-readable output of `query`, `sync` and `watch`.
enum ReportText {
    /// One line per source, then the result.
    static func report(_ report: SyncReport) -> String {
        var lines = servers(report.servers, roughtime: report.roughtime)
        if let check = report.certificateCheck {
            lines.append("certificates checked against \(check.phrase)")
        }
        lines += report.certificateWarnings.map { "certificate warning: \($0)" }
        if report.isDowngraded {
            lines.append(
                "downgrade: NTS servers were configured but only unauthenticated sources answered"
                    + " (allowed by --allow-downgrade)")
        }
        if report.leap.isWorthALine(at: report.trueTime) || !report.leapDisagreeing.isEmpty {
            var leap = "leap second: \(report.leap.text)"
            if !report.leapDisagreeing.isEmpty {
                leap += "; disagreeing: \(report.leapDisagreeing.joined(separator: ", "))"
            }
            if let note = report.leapTableNote { leap += "; \(note)" }
            lines.append(leap)
        }
        let contradicting = report.servers.filter { $0.status == .contradictsAuthenticated }
        if !contradicting.isEmpty {
            lines.append(
                "contradicts authenticated time: "
                    + contradicting.map(\.nameAndAddress).joined(separator: ", ")
                    + " (left out: unauthenticated time never overrules authenticated time)")
        }
        let origin =
            report.anchorUpdate == .keptAuthenticated
            ? "the held authenticated anchor; this sync's unauthenticated time only checked against it"
            : "\(report.source), \(report.server)" + (report.isAuthenticated ? ", authenticated" : "")
        // The result stays the last line: scripts read it.
        lines.append(
            "time \(ISO8601.format(report.trueTime, fractionDigits: 6))  offset \(report.offset.signedFormattedSeconds)"
                + " ± \(report.errorBound.formattedSeconds)  (\(origin))")
        return lines.joined(separator: "\n")
    }

    /// The clock's frequency knowledge after a sync, e.g. `frequency -59.996 ppm ± 2.630 (4 syncs
    /// over 180.0s): the bound grows 2.630 ppm of the time offline`, before a second sync
    /// `frequency not measured yet (1 sync): the bound grows 500.000 ppm of the time offline`, or
    /// with an earlier boot's measurement `frequency -59.996 ppm ± 21.300 (carried from an earlier
    /// boot; 1 sync): …`; a reset this sync caused is named.
    static func frequency(_ frequency: FrequencyEstimate, reset: ClockEvent.FrequencyReset?) -> String {
        let growth = frequency.growthRatePPM.decimalString(fractionDigits: 3)
        let syncs = "\(frequency.syncCount) sync\(frequency.syncCount == 1 ? "" : "s")"
        var line: String
        if frequency.isMeasured {
            let carried = frequency.isCarried ? "carried from an earlier boot; " : ""
            let span = frequency.syncCount > 1 ? " over \(frequency.span.formattedSeconds)" : ""
            line =
                "frequency \(frequency.ppm.signedDecimalString(fractionDigits: 3)) ppm ± \(growth) (\(carried)\(syncs)\(span))"
        } else {
            line = "frequency not measured yet (\(syncs))"
        }
        line += ": the bound grows \(growth) ppm of the time offline"
        if let reset { line += "; history reset by this sync: \(reset)" }
        return line
    }

    /// One line per server: the NTP and NTS servers, the HTTP(S) URLs, then the Roughtime servers
    /// and what they agree on.
    static func servers(_ servers: [SyncReport.Server], roughtime: SyncReport.RoughtimeSummary?) -> [String] {
        var lines =
            servers.compactMap { server in server.ntp.map { source(server, $0) } }
            + servers.compactMap { server in server.http.map { http(server, $0) } }
        if let roughtime {
            lines +=
                servers.filter { $0.roughtime != nil }.map { "roughtime \($0)" } + [roughtime.description]
        }
        return lines
    }

    /// An NTP or NTS server whose details are `ntp`.
    static func source(_ report: SyncReport.Server, _ ntp: SyncReport.Server.NTP) -> String {
        var place = report.address ?? report.name
        if report.kind == .nts {
            place += report.isAuthenticated ? " [NTS, authenticated]" : " [NTS]"
        }
        if report.isSmearing {
            // How far its time was moved onto stepping time (and widened), when it was.
            var note = "smearing"
            if let shift = report.smearCorrection, shift >= .microseconds(1) || shift <= .microseconds(-1) {
                note += ", mapped \(shift.signedFormattedSeconds)"
            }
            if let widening = report.smearWidening, widening >= .microseconds(1) {
                note += ", widened \(widening.formattedSeconds)"
            }
            place += " [\(note)]"
        }
        guard let best = ntp.best, let query = ntp.query else {
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

    /// An HTTP(S) URL whose details are `http`.
    static func http(_ report: SyncReport.Server, _ http: SyncReport.Server.HTTP) -> String {
        guard let offset = report.offset, let bound = report.errorBound else {
            return "\(report.name)  \(report.status)  \(report.reason ?? "")"
        }
        return
            "\(report.name)  offset \(offset.signedFormattedSeconds)  ±\(bound.formattedSeconds)  (\(http.header ?? "http"),"
            + " \(http.requestCount) requests)  \(report.status)"
    }
}
