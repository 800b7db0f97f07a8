#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import SNTP
import TimeValues

// How NetworkClock's public values print: as a person reads them in a log line, not as a dump of
// fields.

extension TimeEstimate: CustomStringConvertible {
    /// E.g. `2026-12-01T03:47:03.313013Z ± 138.9µs (ntp, time.example.com, synced 25.510ms ago)`.
    public var description: String {
        var context = [source.rawValue]
        if let server { context.append(server) }
        context.append("synced \(age.formattedSeconds) ago")
        if isDriftCorrected { context.append("drift corrected") }
        if isAuthenticated { context.append("authenticated") }
        return
            "\(ISO8601.format(time, fractionDigits: 6)) ± \(errorBound.formattedSeconds) (\(context.joined(separator: ", ")))"
    }
}

extension SyncReport: CustomStringConvertible {
    /// E.g. `2026-12-01T03:47:03.287503Z, local clock +42.500004s ± 138.5µs (ntp, 127.0.0.1:123,
    /// 3 of 4 sources agree)`: the local clock's error (local − true, the opposite of ``offset``),
    /// positive when it is ahead, as `netclock now` prints it.
    public var description: String {
        var context = [source.rawValue, server]
        let ntpServers = servers.filter { $0.ntp != nil }.count
        if ntpServers > 0 { context.append("\(agreeingSources) of \(ntpServers) sources agree") }
        if isAuthenticated { context.append("authenticated") }
        let localError = .zero - offset
        return
            "\(ISO8601.format(trueTime, fractionDigits: 6)), local clock \(localError.signedFormattedSeconds) ± \(errorBound.formattedSeconds) (\(context.joined(separator: ", ")))"
    }
}

extension SyncReport.Server: CustomStringConvertible {
    /// One line in its protocol's terms, e.g.
    /// `pool.ntp.org (192.0.2.1:123): selected, offset +1.2ms delay 20.1ms ±10.3ms`,
    /// `pool.ntp.org (192.0.2.2:123): timeout, no reply (timed out)`,
    /// `https://example.com/: selected, offset +2.3s ±5.1ms (date, 7 requests)` or
    /// `roughtime.example.com (192.0.2.3:2002): agreed 2026-12-01T03:47:03Z ± 1.000s`.
    public var description: String {
        let because = reason.map { ", \($0)" } ?? ""
        switch details {
        case .ntp(let ntp), .nts(let ntp):
            var place = nameAndAddress
            if kind == .nts { place += isAuthenticated ? " [NTS, authenticated]" : " [NTS]" }
            if let best = ntp.best, reason == nil {
                return
                    "\(place): \(status), offset \(best.offset.signedFormattedSeconds) delay \(best.delay.formattedSeconds) ±\(best.errorBound.formattedSeconds)"
            }
            return "\(place): \(status)" + because
        case .http(let http), .https(let http):
            guard let offset, let errorBound else { return "\(name): \(status)" + because }
            return
                "\(name): \(status), offset \(offset.signedFormattedSeconds) ±\(errorBound.formattedSeconds) (\(http.header ?? "date"), \(http.requestCount) requests)"
        case .roughtime(let roughtime):
            var text = name + (address.map { " (\($0))" } ?? "") + ": \(status)"
            if let midpoint = roughtime.midpoint, let radius = roughtime.radius {
                text += " \(ISO8601.format(midpoint, fractionDigits: 0)) ± \(radius.formattedSeconds)"
            }
            if let reason { text += " (\(reason))" }
            return text
        }
    }
}

extension ClockTick: CustomStringConvertible {
    /// E.g. `tick 2026-12-01T03:47:04.000000Z (late by 112.0µs)`.
    public var description: String {
        "tick \(ISO8601.format(boundary, fractionDigits: 6)) (late by \(lateness.formattedSeconds))"
    }
}

extension RestoredAnchor: CustomStringConvertible {
    /// E.g. `anchor from time.example.com (ntp), ±138.5µs when measured, saved 2026-12-01T03:47:03Z`.
    public var description: String {
        "anchor from \(server ?? "an unknown server") (\(originalSource)), ±\(errorBound.formattedSeconds) when measured, saved \(ISO8601.format(writtenAt, fractionDigits: 0))"
    }
}

extension AnchorStore: CustomStringConvertible {
    /// The anchor file's path.
    public var description: String { path }
}

extension ClockEvent: CustomStringConvertible {
    /// One log line, e.g. `synced: 2026-…Z, local clock +1.5s ± 1.2ms (ntp, …)` or
    /// `backoff: next sync in 128.000000s after 2 failures`.
    public var description: String {
        switch self {
        case .synced(let report, let replaced):
            return "synced: \(report)" + (replaced ? "" : " (kept the tighter anchor)")
        case .syncFailed(let error): return "sync failed: \(error)"
        case .sourceRejected(let source): return "source rejected: \(source)"
        case .falseticker(let source): return "falseticker: \(source)"
        case .kissOfDeath(let source, let code): return "kiss-o'-death \(code): \(source)"
        case .backoff(let delay, let failures):
            return
                "backoff: next sync in \(delay.formattedSeconds) after \(failures) failure\(failures == 1 ? "" : "s")"
        case .restored(let anchor): return "restored: \(anchor)"
        case .restoreFailed(let error): return "restore failed: \(error)"
        case .storeFailed(let error): return "store failed: \(error)"
        case .anchorDiscontinuity(let step):
            return
                "anchor discontinuity: the new time disagrees with the anchor, now() jumped by \(step.signedFormattedSeconds)"
        case .frequencyReset(let reset):
            return "frequency reset: \(reset); learning the oscillator's frequency again"
        case .provisional(let estimate): return "provisional: \(estimate) (the sync goes on)"
        case .needNotMet(let bound, let need):
            return
                "need not met: the bound ± \(bound.formattedSeconds) is wider than the ± \(need.formattedSeconds) needed"
        case .anchorDropped(let reason): return "anchor dropped: \(reason)"
        case .resumed(let asleep): return "resumed: after \(asleep.formattedSeconds) suspended"
        case .networkChanged: return "network changed: an address or a route was added or removed"
        case .wallClockStepped(let step):
            return "wall clock stepped by \(step.signedFormattedSeconds) (the clock's time is unaffected)"
        }
    }
}

extension Duration {
    /// The duration as NetworkClock's descriptions and the `netclock` command print it, in the unit
    /// that suits its size: `138.9µs`, `1.197ms`, `-3.249994s` (where `description` prints
    /// `0.001196931 seconds`).
    ///
    /// ```swift
    /// if let now = clock.now() {
    ///     print("±", now.errorBound.shortDescription)   // ± 1.197ms
    /// }
    /// ```
    public var shortDescription: String { formattedSeconds }
}

extension NetworkClock.CombineMethod: CustomStringConvertible {
    /// The method's name, e.g. `intersection`.
    public var description: String { rawValue }
}

extension UnixTime {
    /// The instant a Foundation `Date` names (exact to the `Double`'s precision, about 0.1 µs today).
    public init(_ date: Date) {
        self.init(sinceEpoch: Duration(secondsDouble: date.timeIntervalSince1970) ?? .zero)
    }
}
