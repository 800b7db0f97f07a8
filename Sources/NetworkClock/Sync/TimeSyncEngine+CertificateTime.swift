#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NetClockTLS
import Roughtime
import SNTP
import TimeBase

/// Which time a sync checks certificates against, and what it then asks of the HTTPS answers: the
/// trusted clock when there is one, else Roughtime's signed time (asked first), else a bootstrap
/// whose answers are accepted only when consistent with the time they give (ThreatModel,
/// "Secure time from a wrong clock").
extension TimeSyncEngine {
    /// Whether this sync checks any certificate: NTS servers or `https://` URLs are configured.
    var checksCertificates: Bool {
        ntp.policy.usesNTS || httpURLs.contains { $0.scheme?.lowercased() == "https" }
    }

    /// The time to check certificates against, the label the report gives it, and Roughtime's
    /// answer when it had to be awaited first; a signed time wholly before `floor` is not used.
    func certificateTime(roughtime: (() async -> RoughtimeQueryResult?)?, floor: UnixTime?) async -> (
        check: SyncReport.CertificateCheck, time: CertificateTime, roughtime: RoughtimeQueryResult?
    ) {
        if ntp.policy.certificateTimePolicy == .wallClock { return (.wallClock, .wallClock, nil) }
        if let trusted = trustedTime?(), trusted.isAuthenticated {
            return (.trustedClock, .at(secondsSince1970: Self.seconds(trusted.time)), nil)
        }
        if let roughtime, let answer = await roughtime(), case .success(let agreement) = answer.agreement,
            floor.map({ agreement.interval.notBefore($0) != nil }) ?? true
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
        let chains = report.servers.filter(\.tookPart).map { ($0.name, $0.certificateChain) }
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
}
