import Foundation
import HTTPTime
import NetClockTLS
import Roughtime
import SNTP
import TimeBase

/// Which time a sync checks certificates against, and what it then asks of the HTTPS answers: the
/// trusted clock when there is one, else Roughtime's signed time (asked first), else a bootstrap
/// whose answers are accepted only when consistent with the time they give (SECURITY.md,
/// "Secure time from a wrong clock").
extension TimeSyncEngine {
    /// Whether this sync checks any certificate: NTS servers or `https://` URLs are configured.
    var checksCertificates: Bool {
        ntp.policy.usesNTS || httpURLs.contains { $0.scheme?.lowercased() == "https" }
    }

    /// The time to check certificates against, the label the report gives it, and Roughtime's
    /// answer when it had to be awaited first.
    func certificateTime(roughtime: (() async -> RoughtimeQueryResult?)?) async -> (
        check: SyncReport.CertificateCheck, time: CertificateTime, roughtime: RoughtimeQueryResult?
    ) {
        if ntp.policy.certificateTimePolicy == .wallClock { return (.wallClock, .wallClock, nil) }
        if let trusted = trustedTime?(), trusted.isAuthenticated {
            return (.trustedClock, .at(secondsSince1970: Self.seconds(trusted.time)), nil)
        }
        if let roughtime, let answer = await roughtime(), case .success(let agreement) = answer.agreement,
            !(ntp.policy.floor.map { agreement.interval.latest < $0 } ?? false)
        {
            return (.roughtime, .at(secondsSince1970: Self.seconds(agreement.interval.midpoint)), answer)
        } else if let roughtime {
            // Awaited before the tuple is built: see `measureAll` on Swift 6.3's split tuple results.
            let answer = await roughtime()
            return (.bootstrap, .unchecked, answer)
        }
        return (.bootstrap, .unchecked, nil)
    }

    /// Whole seconds since 1970 (rounded down) of `time`.
    static func seconds(_ time: UnixTime) -> Int64 {
        Int64((time.sinceEpoch / .seconds(1)).rounded(.down))
    }

    /// The certificates of the sources `report` rests on whose validity begins or ends inside its
    /// interval: valid at the estimate the handshake was checked at, perhaps not at the true time.
    static func edges(of report: SyncReport) -> [String] {
        let middle = report.trueTime.secondsDouble
        let (earliest, latest) = (
            middle - report.errorBound.secondsDouble, middle + report.errorBound.secondsDouble
        )
        let chains =
            report.sources.filter { $0.status == .selected || $0.status == .survivor }
            .map { ($0.server.description, $0.nts?.certificateChain ?? []) }
            + report.httpSources.filter { $0.status == .selected || $0.status == .survivor }
            .map { ($0.url, $0.certificateChain) }
        var warnings: [String] = []
        for (name, chain) in chains {
            for certificate in chain {
                for (edge, seconds) in [("begins", certificate.notBefore), ("ends", certificate.notAfter)]
                where earliest...latest ~= Double(seconds) {
                    warnings.append(
                        "\(name): the validity of \(certificate.subject) \(edge) at "
                            + "\(ISO8601.format(UnixTime(sinceEpoch: .seconds(seconds)), fractionDigits: 0)), "
                            + "inside the error bound of the time it was checked against")
                }
            }
        }
        return warnings
    }

    /// The HTTP answers the floor and the certificates allow: a measurement whose whole interval
    /// lies before the floor, or whose certificate expired before it, is a falseticker; on a cold
    /// start the measurements must agree by a majority of the configured URLs, and every
    /// certificate of the one chosen must be valid over the time it gives. Marks `reports` and
    /// returns the index of the measurement that decides, or nil when none may.
    /// - Throws: ``SyncError/Code/noMajority`` when a cold start's URLs disagree.
    static func screen(
        _ measurements: [Int: HTTPTimeMeasurement], reports: inout [SyncReport.HTTPSource],
        policy: SyncPolicy,
        configuredURLs: Int
    ) throws(SyncError) -> Int? {
        var eligible = measurements
        if let floor = policy.floor {
            for (index, measurement) in measurements {
                let latest = measurement.trueTime + measurement.errorBound
                let expired = measurement.certificateChain.first {
                    Double($0.notAfter) + 1 < floor.secondsDouble
                }
                guard latest < floor || expired != nil else { continue }
                eligible[index] = nil
                reports[index].status = .falseticker
                reports[index].reason =
                    expired.map { "its certificate \($0.subject) expired before the time floor" }
                    ?? "its whole interval lies before the time floor (\(ISO8601.format(floor, fractionDigits: 0)))"
            }
        }
        guard policy.certificateTime == .unchecked else {
            return eligible.min { $0.value.errorBound < $1.value.errorBound }?.key
        }
        // A cold start: the answers vote, then the chosen one's certificates must be valid at it.
        let order = eligible.keys.sorted()
        if configuredURLs > 1 {
            let intervals = order.compactMap { eligible[$0]?.interval }
                .agedToLatest(tolerancePPM: policy.frequencyTolerancePPM)
            guard let vote = try? Intersection.select(intervals), vote.truechimers.count * 2 > configuredURLs
            else {
                throw SyncError(
                    code: .noMajority,
                    reason: "a cold start without trusted time needs a majority of the \(configuredURLs) "
                        + "configured URLs to agree, and they do not")
            }
            for position in vote.falsetickers {
                let index = order[position]
                eligible[index] = nil
                reports[index].status = .falseticker
                reports[index].reason = "outside the interval the majority of URLs agree on"
            }
        }
        while let best = eligible.min(by: { $0.value.errorBound < $1.value.errorBound }) {
            let middle = best.value.trueTime.secondsDouble
            let bound = best.value.errorBound.secondsDouble
            let invalid = eligible.filter { _, measurement in
                measurement.certificateChain.contains {
                    !$0.isValid(from: middle - bound, to: middle + bound)
                }
            }
            guard !invalid.isEmpty else { return best.key }
            for index in invalid.keys {
                eligible[index] = nil
                reports[index].status = .falseticker
                reports[index].reason =
                    "its certificate is not valid over the time obtained (checked without trusted time)"
            }
        }
        return nil
    }
}
