import NetClockPlatform
import SNTP
import Synchronization

/// Per-address etiquette state that outlives one sync: when we last sent, and what the server
/// told us with a Kiss-o'-Death.
package final class SourceRegistry: Sendable {
    /// What is known about one address.
    package struct Entry: Hashable, Sendable {
        /// When the last burst to it ended (an upper bound on the last send).
        package var lastSend: MonotonicInstant?
        /// No packet is sent before this instant (after RATE, or while backing off from failures).
        package var notBefore: MonotonicInstant?
        /// The terminal kiss code (DENY or RSTR) that dropped this address for good.
        package var dropped: KissCode?
        /// Consecutive bursts that produced no sample.
        package var consecutiveFailures: Int = 0
    }

    private let entries = Mutex<[SocketAddress: Entry]>([:])

    /// Creates an empty registry.
    package init() {}

    /// The state of `address`.
    package func entry(for address: SocketAddress) -> Entry {
        entries.withLock { $0[address] ?? Entry() }
    }

    /// Changes the state of `address`.
    package func update(_ address: SocketAddress, _ body: (inout Entry) -> Void) {
        entries.withLock { table in
            var entry = table[address] ?? Entry()
            body(&entry)
            table[address] = entry
        }
    }
}
