import NetClockPlatform

/// One step of a sync as it happens, for a live progress display such as the CLI's status line.
///
/// Events arrive on the threads doing the work, in no particular order across addresses, and may
/// keep arriving for bursts still running after the sync has returned.
package enum SyncProgress: Hashable, Sendable {
    /// The NTP round starts querying this many addresses.
    case querying(addresses: Int)
    /// A request went out to the address.
    case sent(SocketAddress)
    /// A reply from the address was accepted as a sample.
    case answered(SocketAddress)
    /// A reply from the address was rejected (spoofed, malformed, Kiss-o'-Death, bad values).
    case rejected(SocketAddress)
    /// A request to the address got no valid reply before its timeout.
    case timedOut(SocketAddress)
    /// A request to the address was refused or could not be sent or received.
    case failed(SocketAddress)
    /// The HTTP fallback started measuring the URL.
    case httpStarted(url: String)
    /// The HTTP fallback finished with the URL, with a measurement or without.
    case httpFinished(url: String, measured: Bool)

    /// The events an exchange with `address` ended with: one per rejected reply, then its outcome.
    package static func events(for record: ExchangeRecord, address: SocketAddress) -> [SyncProgress] {
        var events = record.rejected.map { _ in SyncProgress.rejected(address) }
        switch record.outcome {
        case .sample: events.append(.answered(address))
        case .rejected: events.append(.rejected(address))
        case .timedOut: events.append(.timedOut(address))
        case .refused, .failed: events.append(.failed(address))
        }
        return events
    }
}

/// Receives ``SyncProgress`` events. It is called from the threads doing the work, so it must be
/// quick and safe to call concurrently.
package typealias SyncProgressObserver = @Sendable (SyncProgress) -> Void
