#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

/// One sync of every configured source: NTP and NTS, Roughtime beside them, and the HTTP(S)
/// fallback when the selection needs it, all within one overall deadline. A ``SyncRound`` makes
/// the round's decisions, ``SyncRoundRunner`` carries them out, and ``SyncDecision`` runs the one
/// selection over what the round gathered.
///
/// A `noMajority` outcome does not fall back: servers that answered but disagree are evidence of a
/// fault or an attack, and a weaker HTTP source must not paper over it.
package struct TimeSyncEngine: Sendable {
    /// The NTP engine; its policy's servers may be empty (HTTP only).
    package var ntp: NTPSyncEngine
    /// HTTP(S) URLs to fall back on.
    package var httpURLs: [URL]
    /// How HTTP measurements are made.
    package var http: HTTPTimeClient
    /// The whole sync, NTP and fallback together, ends by this long after it starts.
    package var deadline: Duration
    /// The Roughtime query run beside the NTP round, when Roughtime servers are configured.
    package var roughtime: RoughtimeStage?
    /// The trusted clock's time, when it has an authenticated anchor (the facade's clock): what
    /// certificates are checked against under ``NetworkClock/CertificateTimePolicy/automatic``.
    package var trustedTime: (@Sendable () -> TimeEstimate?)?
    /// Against which time certificates are checked, when fixed; nil to decide it by the policy
    /// (``certificateTimeSource(floor:)``).
    package var certificateTime: SyncRound.CertificateTimeSource?
    /// Given each provisional result: a decision on the replies so far that passes the same
    /// selection rules as the round's final one, each later reply tightening it. Returns whether it
    /// already meets the sync's need: the round then ends with what it has.
    package var onProvisional: (@Sendable (SyncReport) -> Bool)?
    /// Whether the round holds each host's addresses beyond the largest odd count in reserve
    /// (``SyncRound/Setup/reservesAddresses``): for a sync with a need.
    package var reservesAddresses = false

    /// Creates an engine. When HTTP URLs are given, NTP gets at most half of `deadline` (or its own
    /// policy deadline, if shorter) so the fallback always has time left.
    package init(
        ntp: NTPSyncEngine, httpURLs: [URL] = [], http: HTTPTimeClient = HTTPTimeClient(),
        deadline: Duration? = nil
    ) {
        self.ntp = ntp
        self.httpURLs = httpURLs
        self.http = http
        self.deadline =
            deadline ?? (ntp.policy.deadline + (httpURLs.isEmpty ? .zero : http.configuration.deadline))
    }

    /// Runs one sync, with `floor` the least the true time was proven to be (nil when unknown) and
    /// `smear` what is known of leap seconds before it, for smearing servers.
    ///
    /// Cancelling the calling task ends the sync within one poll slice with
    /// ``SyncError/cancelled``; there is no fallback then.
    /// - Throws: ``SyncError`` naming every source's failure.
    package func sync(floor: UnixTime? = nil, smear: SmearKnowledge = SmearKnowledge())
        async throws(SyncError) -> SyncReport
    {
        try SyncError.checkCancellation()
        let decision = SyncDecision(policy: ntp.policy, httpURLs: httpURLs, floor: floor, smear: smear)
        var setup = SyncRound.Setup(
            policy: ntp.policy, httpURLs: httpURLs, deadline: deadline, usesRoughtime: roughtime != nil,
            certificateTime: certificateTime ?? certificateTimeSource(floor: floor),
            rateBackoff: ntp.rateBackoff,
            needsFallback: { decision.needsFallback($0) })
        setup.reservesAddresses = reservesAddresses
        let round = SyncRound(
            setup: setup, registry: ntp.registry, sessions: ntp.ntsSessions, nonces: ntp.client.nonces,
            progress: progress)
        var runner = SyncRoundRunner(
            pool: ntp.pool, monotonic: ntp.client.monotonic, wall: ntp.client.wall, policy: ntp.policy,
            http: http, httpURLs: httpURLs, roughtime: roughtime, progress: progress)
        if let onProvisional {
            runner.onProvisional = { evidence in
                guard let report = decision.decideProvisionally(evidence) else { return false }
                return onProvisional(report)
            }
        }
        guard let evidence = await runner.run(round) else { throw .cancelled }
        return try decision.decide(evidence)
    }

    /// Whether this sync checks any certificate: NTS servers or `https://` URLs are configured.
    var checksCertificates: Bool {
        ntp.policy.usesNTS || httpURLs.contains { $0.scheme?.lowercased() == "https" }
    }

    /// Which time the certificates are checked against: the wall clock when so configured, the
    /// trusted clock when it holds authenticated time, else Roughtime's signed time when Roughtime
    /// servers are configured (an agreement wholly before `floor` is not used), else none: a
    /// bootstrap whose answers are accepted only when consistent with the time they give
    /// (ThreatModel, "Secure time from a wrong clock").
    func certificateTimeSource(floor: UnixTime?) -> SyncRound.CertificateTimeSource {
        guard checksCertificates else { return .known(nil, .wallClock) }
        if ntp.policy.certificateTimePolicy == .wallClock { return .known(.wallClock, .wallClock) }
        if let trusted = trustedTime?(), trusted.isAuthenticated {
            let seconds = Int64((trusted.time.sinceEpoch / .seconds(1)).rounded(.down))
            return .known(.trustedClock, .at(secondsSince1970: seconds))
        }
        if roughtime != nil { return .roughtime(floor: floor) }
        return .known(.bootstrap, .unchecked)
    }
}

extension TimeSyncEngine {
    /// Told about the NTP round, every request, and each HTTP fallback URL as it starts and ends;
    /// nil by default.
    package var progress: SyncProgressObserver? {
        get { ntp.progress }
        set { ntp.progress = newValue }
    }
}
