import NetClockTLS
import SNTP
import TimeValues

extension SyncReport {
    /// One server's part in a sync, whatever its protocol: an address of an NTP or NTS server, a
    /// Roughtime server, an HTTP(S) URL. What every protocol reports is here (its name and address,
    /// its status and why, the interval it gave, whether that was authenticated); which protocol it
    /// was asked by, with what only that protocol reports, is ``details``.
    ///
    /// Named for what it describes, a server that was asked, so that "source" keeps its one
    /// meaning in the API: where an estimate's time came from (``TimeSource``).
    public struct Server: Hashable, Sendable {
        /// The protocol the server was asked by (what ``details`` says, without the details).
        package enum Kind: String, Hashable, Sendable {
            /// Plain NTP (RFC 5905).
            case ntp
            /// NTP authenticated by NTS (RFC 8915).
            case nts
            /// Roughtime (RFC 10049 and its drafts).
            case roughtime
            /// An `http://` URL's `Date` or timestamp header.
            case http
            /// An `https://` URL's `Date` or timestamp header.
            case https
        }

        /// The protocol the server was asked by, with what only that protocol reports.
        public enum Details: Hashable, Sendable {
            /// A plain NTP server (RFC 5905): its burst.
            case ntp(NTP)
            /// An NTS server (NTP authenticated by RFC 8915): its burst and association.
            case nts(NTP)
            /// A Roughtime server (RFC 10049 and its drafts): its last valid reply.
            case roughtime(Roughtime)
            /// An `http://` URL: its requests.
            case http(HTTP)
            /// An `https://` URL: its requests.
            case https(HTTP)
        }

        /// The server as configured: `host` or `host:port` for NTP and NTS, the Roughtime server's
        /// name, the URL for HTTP(S).
        public package(set) var name: String
        /// What was decided: for NTP, NTS and HTTP(S) servers the selection's verdict (`selected`,
        /// `survivor`, `falseticker`, …); for a Roughtime server its part in the servers' own vote
        /// (`agreed`, `falseticker`, `unresolved`, …), whose outcome the report's
        /// ``SyncReport/roughtime`` summarises.
        public package(set) var status: SyncReport.SourceStatus
        /// Why, when the server was not used.
        public package(set) var reason: String?
        /// The stable error code of an HTTP(S) failure (`timeout`, `missing_date_header`, …); nil otherwise.
        public package(set) var errorCode: String?
        /// Whether the server was configured as smearing leap seconds
        /// (``NetworkClock/Configuration/smearingServers``): its interval was mapped onto
        /// stepping (POSIX) time before the selection.
        public package(set) var isSmearing = false
        /// For a smearing server with a sample, how far the mapping moved the midpoint of its
        /// interval: stepping minus smeared time, up to ±0.5 s near a leap, zero outside the 24 h
        /// around a month's end.
        public package(set) var smearCorrection: Duration?
        /// For a smearing server with a sample, how much the mapping widened its interval's
        /// half-width: the smear's slope (1/86,400 of the width), the step inside the interval, or
        /// an unknown leap's possible half second.
        public package(set) var smearWidening: Duration?
        /// The validity periods of the certificate chain the server's answer rests on (an NTS key
        /// exchange's, an `https://` connection's), leaf first; empty for none.
        package var certificateChain: [CertificateValidity] = []
        /// The protocol the server was asked by, with what only that protocol reports.
        public package(set) var details: Details

        /// Creates a report.
        package init(name: String, status: SyncReport.SourceStatus, reason: String? = nil, details: Details) {
            self.name = name
            self.status = status
            self.reason = reason
            self.details = details
        }

        /// The protocol the server was asked by.
        package var kind: Kind {
            switch details {
            case .ntp: return .ntp
            case .nts: return .nts
            case .roughtime: return .roughtime
            case .http: return .http
            case .https: return .https
            }
        }

        /// The address asked, when known (`192.0.2.1:123`, `[2001:db8::1]:123`): for NTP the
        /// address queried, for NTS the NTP address its key exchange named, for Roughtime the
        /// address that answered (or the last one tried); nil for HTTP(S).
        public var address: String? {
            switch details {
            case .ntp(let ntp), .nts(let ntp): return ntp.address?.description
            case .roughtime(let roughtime): return roughtime.address
            case .http, .https: return nil
            }
        }

        /// The offset (true time − local wall clock) the server's interval is centred on: for NTP
        /// and NTS the burst's estimate (what it votes with), for HTTP(S) the measurement; nil
        /// without one, and for a Roughtime server (its signed midpoint and radius are in
        /// ``details``; what the servers agree on is ``SyncReport/roughtime``).
        public var offset: Duration? {
            switch details {
            case .ntp(let ntp), .nts(let ntp):
                return ntp.estimate.map { $0.offset.lowerBound + Self.halfWidth($0.offset) }
            case .roughtime: return nil
            case .http(let http), .https(let http): return http.offset
            }
        }

        /// The half-width of the server's interval around ``offset``.
        public var errorBound: Duration? {
            switch details {
            case .ntp(let ntp), .nts(let ntp): return ntp.estimate.map { Self.halfWidth($0.offset) }
            case .roughtime: return nil
            case .http(let http), .https(let http): return http.errorBound
            }
        }

        /// Whether what the server said is authenticated: an NTS server whose samples came from
        /// replies whose authenticator verified (RFC 8915), or a Roughtime server with a validly
        /// signed reply. Plain NTP and HTTP(S) never are.
        public var isAuthenticated: Bool {
            switch details {
            case .ntp: return false
            case .nts(let ntp): return ntp.best != nil
            case .roughtime(let roughtime): return roughtime.midpoint != nil
            case .http, .https: return false
            }
        }

        private static func halfWidth(_ range: ClosedRange<Duration>) -> Duration {
            (range.upperBound - range.lowerBound) / 2
        }

        /// Whether the selection used it: selected or a survivor.
        package var tookPart: Bool { status == .selected || status == .survivor }
    }
}

extension SyncReport.Server {
    /// The NTP details, for an NTP or NTS server; setting them replaces the details (of the same
    /// protocol).
    package var ntp: NTP? {
        get {
            switch details {
            case .ntp(let ntp), .nts(let ntp): return ntp
            default: return nil
            }
        }
        set {
            guard let newValue else { return }
            details = newValue.server.usesNTS ? .nts(newValue) : .ntp(newValue)
        }
    }

    /// The HTTP details, for an HTTP(S) URL; setting them replaces the details.
    package var http: HTTP? {
        get {
            switch details {
            case .http(let http), .https(let http): return http
            default: return nil
            }
        }
        set {
            guard let newValue else { return }
            details = newValue.isHTTPS ? .https(newValue) : .http(newValue)
        }
    }

    /// The Roughtime details, for a Roughtime server.
    package var roughtime: Roughtime? {
        guard case .roughtime(let roughtime) = details else { return nil }
        return roughtime
    }
}
