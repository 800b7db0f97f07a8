import NetClockTLS
import Synchronization

extension FakeNTSServer {
    /// The server's AES-SIV keys with their key schedules made once: the master key of the cookies
    /// and each association's C2S and S2C keys, as chronyd keeps its own. Keying afresh for each of
    /// the four AES-SIV messages of a reply slowed the server's answer enough that clients slept
    /// for every reply, and the benchmark's client CPU paid the context switches
    /// (Benchmarks.md, `nts`).
    final class KeyCache: Sendable {
        /// The most association keys kept; the cache starts again when full (clients of a test
        /// server are few).
        static let capacity = 256

        private let keys = Mutex<[[UInt8]: AESSIVKey]>([:])

        /// The keyed `key`; nil for a key of the wrong length.
        func keyed(_ key: [UInt8]) -> AESSIVKey? {
            keys.withLock { keys in
                if let keyed = keys[key] { return keyed }
                guard let keyed = try? AESSIVKey(key) else { return nil }
                if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
                keys[key] = keyed
                return keyed
            }
        }
    }
}
