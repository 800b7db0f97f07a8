import TimeValues

/// Where the time behind an anchor came from.
///
/// The raw values (`"ntp"`, `"http"`, `"roughtime"`, `"restored"`) are stable: they appear in the CLI's JSON output
/// and in the anchor file.
public enum TimeSource: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A synchronization with one or more NTP/SNTP servers.
    case ntp
    /// An HTTP(S) response's `Date` or timestamp header.
    case http
    /// The signed answers of Roughtime servers (RFC 10049): authenticated without certificates,
    /// coarse (a radius of a second or more).
    case roughtime
    /// An anchor read back from the anchor file after a process restart in the same boot.
    case restored

    /// The raw value, e.g. `ntp`.
    public var description: String { rawValue }

    /// A compact code for the lock-free published state of ``AnchoredClock``.
    var code: UInt8 {
        switch self {
        case .ntp: return 1
        case .http: return 2
        case .restored: return 3
        case .roughtime: return 4
        }
    }

    /// The source with the given compact code; unknown codes read as `restored`, the most cautious.
    init(code: UInt8) {
        switch code {
        case 1: self = .ntp
        case 2: self = .http
        case 4: self = .roughtime
        default: self = .restored
        }
    }
}
