import NetworkClock

/// What a sync round has done so far, counted from its ``SyncProgress`` events, and the status
/// line that says so: `querying 3 addresses: 7 sent, 5 answered, 1 timed out… (1.2s)`.
struct ProgressCounts: Hashable, Sendable {
    /// NTP addresses being queried; nil until the names are resolved.
    var addresses: Int?
    var sent = 0
    var answered = 0
    var rejected = 0
    var timedOut = 0
    var failed = 0
    /// HTTP URLs started and finished.
    var httpStarted = 0
    var httpFinished = 0

    /// Counts `event`.
    mutating func apply(_ event: SyncProgress) {
        switch event {
        case .querying(let count): addresses = count
        case .sent: sent += 1
        case .answered: answered += 1
        case .rejected: rejected += 1
        case .timedOut: timedOut += 1
        case .failed: failed += 1
        case .httpStarted: httpStarted += 1
        case .httpFinished: httpFinished += 1
        }
    }

    /// The status line after `elapsed`: NTP counts (sent and answered always, the rest when not
    /// zero), then HTTP, then the elapsed time in tenths of a second.
    func text(elapsed: Duration) -> String {
        var parts: [String] = []
        if let addresses {
            var counts = ["\(sent) sent", "\(answered) answered"]
            if rejected > 0 { counts.append("\(rejected) rejected") }
            if timedOut > 0 { counts.append("\(timedOut) timed out") }
            if failed > 0 { counts.append("\(failed) failed") }
            let noun = addresses == 1 ? "address" : "addresses"
            parts.append("querying \(addresses) \(noun): " + counts.joined(separator: ", "))
        }
        if httpStarted > 0 {
            parts.append("HTTP \(httpStarted) URL\(httpStarted == 1 ? "" : "s"): \(httpFinished) done")
        }
        if parts.isEmpty { parts.append("resolving servers") }
        let tenths = max(0, elapsed / .milliseconds(100)).rounded(.down)
        let seconds = Int(tenths) / 10
        return parts.joined(separator: "; ") + "… (\(seconds).\(Int(tenths) % 10)s)"
    }
}
