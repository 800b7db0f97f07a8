#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NTSClient
import NetClockPlatform
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

extension SyncRound {
    /// Identifies one NTP or NTS target (an address of a plain server, or an NTS server) in a round.
    package typealias TargetID = Int

    /// What the round asks its runner to do.
    package enum Action: Sendable {
        /// Resolve these plain NTP servers' names (each to at most the policy's addresses per host)
        /// and report each with ``Event/resolved(_:_:)``; a name not resolved by the round's
        /// resolution deadline is reported as failed by the round itself.
        case resolve([ServerName])
        /// Make `server`'s NTS association ready under `certificateTime`: a key exchange unless
        /// `association` is given, within `timeout`, then its NTP address; report it with
        /// ``Event/ntsPrepared(_:_:)``.
        case prepareNTS(
            ServerName, association: NTSAssociation?, certificateTime: CertificateTime, timeout: Duration)
        /// Send `datagram` to `address` over the target's own connected UDP socket (opened on the
        /// first send), and report what arrives on it with ``Event/datagram(_:_:)`` or
        /// ``Event/transportFailure(_:_:)``.
        case send([UInt8], target: TargetID, address: SocketAddress)
        /// The target's burst is over: its socket may be closed.
        case close(TargetID)
        /// Query the configured Roughtime servers (the chained sequence) and report the result with
        /// ``Event/roughtime(_:)``.
        case queryRoughtime
        /// Measure every HTTP(S) URL within `within`, checking `https://` certificates against
        /// `certificateTime`, and report with ``Event/httpMeasured(_:)``.
        case measureHTTP(within: Duration, certificateTime: CertificateTime)
        /// A reply added a sample while the round goes on: what it has gathered so far, the bursts
        /// still running included, for a provisional decision (``SyncDecision``) that gives time
        /// before the round is over.
        case provisional(RoundEvidence)
        /// The round is over: what it gathered.
        case finish(RoundEvidence)
    }

    /// What happened, told to the round with the instant it happened at.
    package enum Event: Sendable {
        /// The round starts; every local timestamp of its bursts goes through `mapping`.
        case start(TimeMapping)
        /// A plain server's name resolved (or failed to).
        case resolved(ServerName, Result<[SocketAddress], TransportError>)
        /// An NTS server's association is ready (or not).
        case ntsPrepared(ServerName, NTSPreparation)
        /// A datagram arrived on a target's socket.
        case datagram(TargetID, [UInt8])
        /// A target's socket failed (refused, a system call error).
        case transportFailure(TargetID, TransportError)
        /// The round's wake-up (``SyncRound/wake``) passed.
        case timer
        /// The Roughtime query finished.
        case roughtime(RoughtimeQueryResult)
        /// The HTTP(S) measurements finished, one result per URL in order.
        case httpMeasured([Result<HTTPTimeMeasurement, HTTPTimeError>])
        /// The caller gave up: the round finishes at once with what it has.
        case cancel
        /// A provisional decision on what the round has gathered already meets the sync's need
        /// (``NetworkClock/RefreshPolicy/maximumBound``): the bursts stop with the samples they
        /// have and the round ends as at its deadline (Roughtime still awaited, the fallback still
        /// judged), its evidence not cancelled. A demand-driven sync then costs about one request
        /// per address instead of a whole burst.
        case satisfied
    }

    /// What preparing one NTS server gave: the association (new or kept) and the NTP address, or why
    /// there is none.
    package struct NTSPreparation: Sendable {
        /// The association; nil when the key exchange failed.
        package var association: NTSAssociation?
        /// Whether a key exchange ran for it.
        package var keyExchanged: Bool
        /// The NTP address the association names; nil with a failure.
        package var ntpAddress: SocketAddress?
        /// Why the server cannot be queried: a failed key exchange, an NTP name that does not
        /// resolve.
        package var failure: NTSFailure?

        /// A preparation from its parts.
        package init(
            association: NTSAssociation?, keyExchanged: Bool, ntpAddress: SocketAddress? = nil,
            failure: NTSFailure? = nil
        ) {
            self.association = association
            self.keyExchanged = keyExchanged
            self.ntpAddress = ntpAddress
            self.failure = failure
        }
    }

    /// Against which time the round's certificates are checked, or how that is to be found.
    package enum CertificateTimeSource: Sendable {
        /// Known when the round starts (the wall clock by policy, the trusted clock, or no
        /// certificate to check at all).
        case known(SyncReport.CertificateCheck?, CertificateTime)
        /// From the Roughtime servers' agreement, the one time a cold start has before any
        /// certificate can be checked: the NTS key exchanges and `https://` measurements wait for it
        /// (plain NTP does not), and an agreement wholly before `floor` is not used.
        case roughtime(floor: UnixTime?)
    }
}
