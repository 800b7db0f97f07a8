import NetClockTLS
import Roughtime
import SNTP
import TimeValues

/// What one sync round gathered, before any selection: every source's own result, measured once,
/// and the candidate it yields (built where it was measured, from the measurement itself).
/// ``SyncDecision`` runs the one selection over the candidates and writes the report; nothing here
/// has been judged yet.
package struct RoundEvidence: Sendable {
    /// One source's part: its report so far and, when it gave a usable interval, its candidate
    /// (whose ``Candidate/index`` the decision sets to the source's place in the report).
    package struct Source: Sendable {
        /// What happened to the source (for NTP: `survivor` when its samples agree, else
        /// `timeout`, `refused`, `kod`, `rejected`, `inconsistent`, `skipped`, `error`).
        package var report: SyncReport.Server
        /// Its evidence, when it has an interval.
        var candidate: Candidate?
    }

    /// Every NTP and NTS target, in the configured order (a plain server's addresses in the
    /// resolver's order, then the NTS servers).
    package var ntp: [Source] = []
    /// The HTTP(S) URLs in order, when the round measured them or ruled them out; nil when the
    /// fallback was not needed.
    package var http: [Source]?
    /// The Roughtime query, when one ran and finished in time.
    package var roughtime: RoughtimeQueryResult?
    /// Each Roughtime server in order, one candidate per validly signed reply.
    package var roughtimeServers: [Source] = []
    /// Which time the certificates were checked against; nil when none was checked.
    package var certificateCheck: SyncReport.CertificateCheck?
    /// The time NTS-KE and `https://` certificates were checked against.
    package var certificateTime: CertificateTime = .wallClock
    /// The round's pairing of the wall clock with the monotonic clock: its offsets' reference.
    package var mapping: TimeMapping
    /// When the round started and ended.
    package var start: MonotonicInstant
    package var end: MonotonicInstant
    /// Whether the caller gave up before the round was over.
    package var cancelled = false

    /// An empty round starting at `start`, mapped by `mapping`.
    package init(start: MonotonicInstant, mapping: TimeMapping) {
        self.start = start
        self.end = start
        self.mapping = mapping
    }

    /// Whether an NTP or NTS target gave consistent samples.
    package var hasNTPAnswer: Bool { ntp.contains { $0.candidate != nil } }
}
