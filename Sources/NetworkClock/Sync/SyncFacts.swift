import NetClockTLS
import TimeValues

/// What is known when one sync begins, and differs from sync to sync: an argument of the sync, not
/// part of its policy.
struct SyncFacts: Sendable {
    /// The least the true time was proven to be (``TimeFloor``); nil when unknown.
    var floor: UnixTime?
    /// Against which time NTS-KE and HTTPS check certificates in this sync: the trusted clock,
    /// Roughtime's time, none for a cold start, or the wall clock.
    var certificateTime: CertificateTime = .wallClock
    /// What is known of leap seconds before the sync (a valid table, the held anchor's schedule),
    /// for mapping smearing servers onto stepping time.
    var smear = SmearKnowledge()
}
