import NetClockTLS
import TimeValues

/// One source's evidence, whatever its protocol: the interval of true time it proves, at a
/// monotonic instant, and what that proof rests on. Every source kind is screened and combined as
/// this one value (see ``SourceSelection``).
struct Candidate: Hashable, Sendable {
    /// What kind of source gave the evidence: the protocol its server was asked by.
    typealias Kind = SyncReport.Server.Kind

    /// Index of the source in its report list.
    var index: Int
    /// The configured name the source answers for (a server or a URL): majorities count names,
    /// not addresses.
    var name: String
    var kind: Kind
    /// The source's interval: for an NTP burst, the intersection of its samples' intervals.
    var interval: TrueTimeInterval
    /// The round trip of the exchange the interval is tightest from.
    var delay: Duration
    /// Whether the evidence is cryptographically bound to the source (NTS, Roughtime).
    var isAuthenticated: Bool
    /// The certificates the evidence rests on (NTS-KE or HTTPS), leaf first; empty for none.
    var certificates: [CertificateValidity]
}

extension Candidate.Kind {
    /// Whether the kind is NTP's, plain or NTS: the sources the HTTP(S) fallback stands in for.
    var isNTP: Bool { self == .ntp || self == .nts }
}
