import NetworkClock

/// The `--json` object of a failed round: `error` and the sources that explain it.
struct SyncFailureJSON: Encodable {
    /// The readable reason (also printed on stderr).
    var error: String
    /// Every NTP source.
    var servers: [SourceJSON]
    /// Every HTTP source tried.
    var http: [HTTPSourceJSON]
    /// Always false: there is no time to vouch for.
    var authenticated = false
    /// `unauthenticated_only` when the round failed because only unauthenticated sources answered
    /// although NTS servers were configured (a downgrade, refused without `--allow-downgrade`),
    /// else `null`.
    var downgrade: Nullable<String>
    /// With `--roughtime`: the Roughtime servers' part (absent otherwise).
    var roughtime: RoughtimeJSON?
    /// Which time the certificates were checked against; `null` when none was checked.
    var certificateTime: Nullable<String>
    /// `set` only, when a held authenticated anchor decided although no source gave time: what
    /// was done to the system clock (absent otherwise).
    var set: SetJSON?

    enum CodingKeys: String, CodingKey {
        case error, servers, http, authenticated, downgrade, roughtime, set
        case certificateTime = "certificate_time"
    }

    /// The object for `failure`.
    init(_ failure: SyncError, malfeasanceReport: String? = nil) {
        roughtime = failure.roughtime.map {
            RoughtimeJSON($0, servers: failure.servers, reportPath: malfeasanceReport)
        }
        error = failure.description
        certificateTime = Nullable(failure.certificateCheck?.rawValue)
        servers = SourceJSON.entries(failure.servers, certificateCheck: failure.certificateCheck)
        http = HTTPSourceJSON.entries(failure.servers, certificateCheck: failure.certificateCheck)
        downgrade = Nullable(failure.code == .unauthenticatedOnly ? failure.code.rawValue : nil)
    }
}

/// The `--json` object of a `sync` that refused its state files before querying: the shape of
/// ``SyncFailureJSON`` (no source was asked, so `servers` and `http` are empty) with the refused
/// file as `state` and the store's code as `error_code` (`not_regular_file`, `symbolic_link`,
/// `wrong_owner`, `unsafe_permissions`, `unsafe_directory`).
struct StateFailureJSON: Encodable {
    /// The readable reason (also printed on stderr).
    var error: String
    /// The ``AnchorStoreError/Code`` of the refusal.
    var errorCode: String
    /// The file refused (the anchor file, or the NTS cookie file beside it).
    var state: String
    /// Always empty: nothing was queried.
    var servers: [SourceJSON] = []
    /// Always empty: nothing was queried.
    var http: [HTTPSourceJSON] = []
    /// Always false: there is no time to vouch for.
    var authenticated = false

    enum CodingKeys: String, CodingKey {
        case error, state, servers, http, authenticated
        case errorCode = "error_code"
    }

    /// The object for `failure`.
    init(_ failure: AnchorStoreError) {
        error = failure.reason
        errorCode = failure.code.rawValue
        state = failure.path
    }
}
