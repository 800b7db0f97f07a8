import NetClockTLS
import SNTP
import TimeBase

/// What the time floor and the certificates' validity periods allow, in the NTP selection.
///
/// The floor (``TimeFloor``) is a lower bound on the true time: a source whose whole interval lies
/// before it cannot be right, and a certificate that expired before it cannot be valid now. A cold
/// start without trusted time (``CertificateTime/unchecked``) checked no validity period at the
/// handshake, so the time the sources agree on must then make every certificate of every source it
/// rests on valid over its whole bound, and with several servers configured a majority of them must
/// agree: a key stolen long ago can then not set the time alone.
extension NTPSyncEngine {
    /// `candidates` without those that the floor rules out, which are marked falsetickers.
    static func dropBeforeFloor(
        _ candidates: [Candidate], from reports: inout [SyncReport.NTPSource], floor: UnixTime?
    )
        -> [Candidate]
    {
        guard let floor else { return candidates }
        return candidates.filter { candidate in
            if candidate.interval.latest < floor {
                reports[candidate.index].status = .falseticker
                reports[candidate.index].reason =
                    "its whole interval lies before the time floor (\(ISO8601.format(floor, fractionDigits: 0))), "
                    + "the least the true time was proven to be"
                return false
            }
            let chain = reports[candidate.index].nts?.certificateChain ?? []
            if let expired = chain.first(where: { Double($0.notAfter) + 1 < floor.secondsDouble }) {
                reports[candidate.index].status = .falseticker
                reports[candidate.index].reason =
                    "its certificate \(expired.subject) expired before the time floor "
                    + "(\(ISO8601.format(floor, fractionDigits: 0)))"
                return false
            }
            return true
        }
    }

    /// On a cold start, the sources (report index → reason) whose certificates are not valid over
    /// the whole interval `outcome` gives; empty otherwise.
    static func certificatesInvalid(
        at outcome: SourceCombiner.Outcome, among candidates: [Candidate], reports: [SyncReport.NTPSource],
        policy: SyncPolicy
    ) -> [Int: String] {
        guard policy.certificateTime == .unchecked else { return [:] }
        let (earliest, latest) = (
            outcome.interval.earliest.secondsDouble, outcome.interval.latest.secondsDouble
        )
        var invalid: [Int: String] = [:]
        for candidate in candidates {
            let chain = reports[candidate.index].nts?.certificateChain ?? []
            guard let outside = chain.first(where: { !$0.isValid(from: earliest, to: latest) }) else {
                continue
            }
            invalid[candidate.index] =
                "its certificate \(outside.subject) is not valid over the time the sources agree on "
                + "(\(ISO8601.format(outcome.interval.midpoint, fractionDigits: 0)) ± "
                + "\(outcome.interval.radius.formattedSeconds); checked without trusted time)"
        }
        return invalid
    }

    /// On a cold start with more than one configured server that may decide, throws unless a
    /// majority of them (by name, not address) agree on the time.
    static func requireBootstrapMajority(
        _ outcome: SourceCombiner.Outcome, reports: [SyncReport.NTPSource], policy: SyncPolicy
    ) throws(SyncError) {
        guard policy.certificateTime == .unchecked else { return }
        // The servers that could decide this sync: only the NTS ones when the mode keeps the others
        // out (always under require; under prefer, once an NTS source answered).
        let agreeing = [outcome.selected] + outcome.survivors
        let onlyNTS =
            policy.ntsMode == .require
            || (policy.ntsMode == .prefer && agreeing.contains { reports[$0].isAuthenticated })
        let deciding = policy.servers.filter { !onlyNTS || $0.usesNTS }
        let configured = Set(deciding.map(\.description)).count
        guard configured > 1 else { return }
        let distinct = Set(agreeing.map { reports[$0].server.description }).count
        guard distinct * 2 <= configured else { return }
        throw SyncError(
            code: .noMajority,
            reason: "a cold start without trusted time needs a majority of the \(configured) configured "
                + "servers to agree, and \(distinct) \(distinct == 1 ? "does" : "do")",
            sources: reports)
    }
}
