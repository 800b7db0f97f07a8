import Roughtime
import SNTP
import TimeValues

// The time value types and names that NetworkClock's API speaks in, defined once in SNTP and
// named here so that `import NetworkClock` is all an app needs.

/// An instant on the true-time (UTC) line: a duration since 1970-01-01T00:00:00Z. See
/// `SNTP.UnixTime`.
public typealias UnixTime = SNTP.UnixTime

/// An instant on the boot-time clock, which users cannot set and which counts through suspend.
/// See `SNTP.MonotonicInstant`.
public typealias MonotonicInstant = SNTP.MonotonicInstant

/// A server as a user writes it: `host`, `host:port`, `[v6addr]` or `[v6addr]:port`. See
/// `SNTP.ServerName`.
public typealias ServerName = SNTP.ServerName

/// How one NTP server address is queried: requests per burst, spacing, timeout, validation limits.
/// See `SNTP.QueryOptions`.
public typealias QueryOptions = SNTP.QueryOptions

/// A Roughtime server (RFC 10049): a name, UDP addresses, and the long-term Ed25519 public key its
/// answers must be signed with. See `Roughtime.RoughtimeServer`.
public typealias RoughtimeServer = Roughtime.RoughtimeServer
