import NetClockTLS
import SNTP
import Testing
import TimeValues

@testable import NetworkClock

/// The one selection every source kind goes through (``SourceSelection``), on fixed candidates:
/// each screen and check alone, their composition from a policy, and candidates of different kinds
/// judged by the same rules.
@Suite struct SourceSelectionTests {
    static let instant = MonotonicInstant(sinceOrigin: .seconds(500))
    static let truth = UnixTime(sinceEpoch: .seconds(1_796_040_000))

    /// A candidate whose interval is `truth + offset ± bound` at ``instant``.
    static func candidate(
        _ index: Int, _ name: String, offset: Duration = .zero, bound: Duration = .milliseconds(10),
        kind: Candidate.Kind = .ntp, authenticated: Bool = false, certificates: [CertificateValidity] = []
    ) -> Candidate {
        Candidate(
            index: index, name: name, kind: kind,
            interval: TrueTimeInterval(time: truth + offset, bound: bound, instant: instant),
            delay: .milliseconds(1), isAuthenticated: authenticated, certificates: certificates)
    }

    /// A certificate valid from `start` to `end` seconds around ``truth``.
    static func certificate(_ start: Int64, _ end: Int64) -> CertificateValidity {
        let now = Int64(truth.secondsDouble)
        return CertificateValidity(notBefore: now + start, notAfter: now + end, subject: "CN=test")
    }

    static func selection(
        mode: NetworkClock.NTSMode = .mix, floor: UnixTime? = nil, coldStart: Bool = false,
        ntsConfigured: Bool,
        configured: [String: Bool]
    ) -> SourceSelection {
        var policy = SyncPolicy(servers: [])
        policy.ntsMode = mode
        let facts = SyncFacts(floor: floor, certificateTime: coldStart ? .unchecked : .wallClock)
        return SourceSelection(
            policy: policy, facts: facts, ntsConfigured: ntsConfigured, configured: configured)
    }

    @Test(arguments: [NetworkClock.NTSMode.require, .prefer, .mix])
    func theAuthenticationScreenFollowsTheMode(_ mode: NetworkClock.NTSMode) {
        let screen = AuthenticationScreen(mode: mode, ntsConfigured: true)
        let mixed = [Self.candidate(0, "a", authenticated: true), Self.candidate(1, "b")]
        let plainOnly = [Self.candidate(1, "b")]
        switch mode {
        case .require:
            #expect(screen.rejections(among: mixed).keys.sorted() == [1])
            #expect(screen.rejections(among: plainOnly).keys.sorted() == [1])
        case .prefer:
            #expect(screen.rejections(among: mixed).keys.sorted() == [1])
            #expect(screen.rejections(among: plainOnly).isEmpty)
        case .mix:
            #expect(screen.rejections(among: mixed).isEmpty)
        }
        for rejection in screen.rejections(among: mixed).values {
            #expect(rejection == .unauthenticated(rejection.reason))
        }
    }

    @Test func theFloorRulesOutIntervalsWhollyBeforeItAndCertificatesExpiredBeforeIt() {
        let floor = Self.truth - .seconds(60)
        let screen = TimeFloorScreen(floor: floor)
        let rejected = screen.rejections(among: [
            Self.candidate(0, "before", offset: .seconds(-61)),
            // Its interval reaches the floor: it may be right.
            Self.candidate(1, "touching", offset: .seconds(-60) - .milliseconds(5)),
            Self.candidate(2, "expired", certificates: [Self.certificate(-1000, -120)]),
            Self.candidate(3, "valid", certificates: [Self.certificate(-1000, 1000)]),
        ])
        #expect(rejected.keys.sorted() == [0, 2])
        #expect(rejected[0]?.reason.contains("before the time floor") == true)
        #expect(rejected[2]?.reason.contains("expired before the time floor") == true)
    }

    @Test func aColdStartDropsACandidateWhoseCertificateIsInvalidAtTheAgreedTimeAndVotesAgain() throws {
        // Three agree on the truth; one of them rests on a certificate that ended an hour ago.
        let selection = Self.selection(
            coldStart: true, ntsConfigured: false,
            configured: ["a": false, "b": false, "c": false])
        let decision = try selection.decide([
            Self.candidate(0, "a", certificates: [Self.certificate(-1000, 1000)]),
            Self.candidate(1, "b", certificates: [Self.certificate(-7200, -3600)]),
            Self.candidate(2, "c", offset: .milliseconds(2)),
        ])
        #expect(decision.rejected.keys.sorted() == [1])
        #expect(decision.rejected[1]?.reason.contains("not valid over the time the sources agree on") == true)
        #expect(
            decision.outcome.interval.earliest <= Self.truth && Self.truth <= decision.outcome.interval.latest
        )
        #expect(Set(decision.outcome.survivors) == [0, 2])
    }

    @Test func aColdStartNeedsAMajorityOfConfiguredNamesNotOfAddresses() {
        // Two answers from two addresses of one name, out of three configured names.
        let selection = Self.selection(
            coldStart: true, ntsConfigured: false,
            configured: ["a": false, "b": false, "c": false])
        #expect {
            try selection.decide([Self.candidate(0, "a"), Self.candidate(1, "a")])
        } throws: { error in
            guard case SourceSelection.Failure.bootstrapRefused(let reason, _) = error else { return false }
            return reason.contains("majority of the 3 configured servers") && reason.contains("1 does")
        }
        // With trusted time there is no such rule.
        let trusted = Self.selection(
            ntsConfigured: false,
            configured: ["a": false, "b": false, "c": false])
        #expect(throws: Never.self) { try trusted.decide([Self.candidate(0, "a"), Self.candidate(1, "a")]) }
    }

    @Test func underPreferTheMajorityCountsOnlyTheAuthenticatedKinds() throws {
        // One NTS server of one configured agrees: a majority of those that may decide.
        let selection = Self.selection(
            mode: .prefer, coldStart: true, ntsConfigured: true,
            configured: ["nts": true, "plain1": false, "plain2": false])
        let decision = try selection.decide([
            Self.candidate(0, "nts", kind: .nts, authenticated: true),
            Self.candidate(1, "plain1"), Self.candidate(2, "plain2"),
        ])
        #expect(decision.outcome.selected == 0)
        #expect(decision.rejected[1] == decision.rejected[2])
        #expect(decision.rejected[1]?.reason.contains("NTS mode prefer") == true)
    }

    @Test func kindsAreJudgedAlikeAndAFalsetickerOfAnyKindIsNamed() throws {
        let selection = Self.selection(ntsConfigured: false, configured: [:])
        let decision = try selection.decide([
            Self.candidate(0, "ntp", kind: .ntp),
            Self.candidate(1, "https://a/", offset: .milliseconds(3), kind: .https),
            Self.candidate(2, "http://b/", offset: .seconds(40), kind: .http),
        ])
        #expect(decision.rejected.keys.sorted() == [2])
        #expect(decision.rejected[2] == .falseticker("outside the interval the majority of sources agree on"))
        #expect(
            decision.outcome.interval.earliest <= Self.truth && Self.truth <= decision.outcome.interval.latest
        )
    }

    @Test func everyCandidateRuledOutOrSplitGivesItsFailureWithTheRejections() {
        let selection = Self.selection(
            floor: Self.truth, ntsConfigured: false, configured: [:])
        #expect {
            try selection.decide([Self.candidate(0, "old", offset: .seconds(-100))])
        } throws: { error in
            guard case SourceSelection.Failure.noCandidates(let rejected) = error else { return false }
            return rejected.keys.sorted() == [0]
        }
        let split = Self.selection(ntsConfigured: false, configured: [:])
        #expect {
            try split.decide([Self.candidate(0, "a"), Self.candidate(1, "b", offset: .seconds(5))])
        } throws: { error in
            guard case SourceSelection.Failure.noMajority = error else { return false }
            return true
        }
    }
}
