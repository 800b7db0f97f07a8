import Foundation
import LoopbackServers
import Testing

/// A wrong wall clock for a child process, through libfaketime (``LibFaketime``): what the user of
/// a machine with a wrong date sees. Only the wall clock moves; the monotonic clocks, on which the
/// anchored clock runs, are left alone (`FAKETIME_DONT_FAKE_MONOTONIC=1`).
///
/// The honest servers of these tests read this machine's real clock, so a correct client reports
/// an offset (true − wall) of exactly minus the shift: +400 days for a clock 400 days behind.
struct WallClockShift: Sendable, Hashable, CustomTestStringConvertible {
    /// How the clock is wrong.
    enum Kind: Sendable, Hashable {
        /// Off by a whole number of days (negative: behind), from the moment the program starts.
        case days(Int64)
        /// Off by a whole number of seconds (negative: behind): a clock that drifted a little.
        case seconds(Int64)
        /// Starting at this instant (seconds since 1970) when the program starts, then running: a dead
        /// RTC battery.
        case startingAt(Int64)
    }

    var kind: Kind
    /// What a plain wall-clock check says of the honest leaf (valid from now for 3 days) and the CA
    /// (valid ±500 days) at this time: OpenSSL's words for `X509_V_ERR_CERT_NOT_YET_VALID` or
    /// `X509_V_ERR_CERT_HAS_EXPIRED`.
    var strictReason: String

    /// 400 days behind: last year's date.
    static let behind400Days = WallClockShift(kind: .days(-400), strictReason: "certificate is not yet valid")
    /// 400 days ahead.
    static let ahead400Days = WallClockShift(kind: .days(400), strictReason: "certificate has expired")
    /// 20 days behind: a clock that drifted or was set by hand.
    static let behind20Days = WallClockShift(kind: .days(-20), strictReason: "certificate is not yet valid")
    /// 30 s ahead: a clock that drifted or was set by hand, not far enough to matter to
    /// certificates.
    static let ahead30Seconds = WallClockShift(
        kind: .seconds(30), strictReason: "none: the certificates are valid at this time")
    /// 1970-01-02 00:00:00 UTC: the date a machine without a working RTC starts at (a day after the
    /// epoch, so every time zone's local date is still valid).
    static let deadRTC = WallClockShift(
        kind: .startingAt(86_400), strictReason: "certificate is not yet valid")

    /// Every wrong clock of issue 21.
    static let all: [WallClockShift] = [behind400Days, ahead400Days, behind20Days, deadRTC]

    /// libfaketime's `FAKETIME`: `-400d`, `+400d`, `@1970-01-02 00:00:00`.
    var fakeTime: String {
        switch kind {
        case .days(let days): return days < 0 ? "\(days)d" : "+\(days)d"
        case .seconds(let seconds): return seconds < 0 ? "\(seconds)s" : "+\(seconds)s"
        case .startingAt(let seconds):
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
            return "@" + formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
    }

    /// The variables that give a program this clock.
    func environment() throws -> [String: String] {
        LibFaketime.environment(fakeTime, library: try LibFaketime.require())
    }

    /// The offset (true − wall clock, seconds) an exact answer gives in a program of this clock
    /// started between the real instants `spawnedAt` and `exitedAt` (seconds since 1970).
    ///
    /// libfaketime (0.9.10) initialises twice in a Swift program: first lazily, when libswiftCore's
    /// constructors call `stat` before libfaketime's own constructor has run, then in that
    /// constructor. The second start reading replaces the first, but the shifted start computed
    /// from the first stays, so the program's clock runs behind the asked shift by the time between
    /// the two: microseconds mostly, 0.3–0.5 ms in a few runs in a hundred on a quiet machine, 6 ms
    /// once on a loaded one. Both happen between the spawn and the exit, so a shift's offset lies
    /// between the exact value and that plus the run's length. A clock starting at an instant
    /// starts at libfaketime's second initialisation, likewise within the run.
    func expectedOffset(spawnedAt: Double, exitedAt: Double) -> ClosedRange<Double> {
        let runLength = max(0, exitedAt - spawnedAt)
        switch kind {
        case .days(let days):
            let offset = -Double(days * 86_400)
            return offset...(offset + runLength)
        case .seconds(let seconds):
            return -Double(seconds)...(-Double(seconds) + runLength)
        case .startingAt(let seconds):
            return (spawnedAt - Double(seconds))...(exitedAt - Double(seconds))
        }
    }

    /// `−400 d`, `+400 d`, `−20 d`, `1970-01-02 (dead RTC)`.
    var testDescription: String {
        switch kind {
        case .days(let days): return days < 0 ? "−\(-days) d" : "+\(days) d"
        case .seconds(let seconds): return seconds < 0 ? "−\(-seconds) s" : "+\(seconds) s"
        case .startingAt: return "\(fakeTime.dropFirst().prefix(10)) (dead RTC)"
        }
    }
}

/// Named as in the tests' output, for the cases that run at once (`concurrently`).
extension WallClockShift: CustomStringConvertible {
    var description: String { testDescription }
}
