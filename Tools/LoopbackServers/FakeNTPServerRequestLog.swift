import NetClockPlatform
import SNTP
import Synchronization
import TimeValues

extension FakeNTPServer {
    /// One datagram the server received, and what it did about it.
    package struct LoggedRequest: Hashable, Sendable {
        /// What the server did with a request.
        package enum Outcome: Hashable, Sendable {
            /// Still waiting for its delays to pass.
            case pending
            /// At least one datagram was sent in answer (see ``LoggedRequest/sent``).
            case replied
            /// Nothing was or will be sent, for the given reason.
            case dropped(reason: String)
        }

        /// One datagram sent in answer to a request.
        package struct SentDatagram: Hashable, Sendable {
            /// The bytes sent.
            package var bytes: [UInt8]
            /// When it was sent, on this machine's wall clock (no offset).
            package var sentAt: UnixTime
            /// When it was sent, on the boot-time clock.
            package var sentAtMonotonic: MonotonicInstant
            /// The source port it was sent from: the server's port, or another one for
            /// ``Behaviour/fromOtherPort``.
            package var sourcePort: UInt16
            /// Why `sendto` failed, or nil when it succeeded.
            package var failure: String?
        }

        /// The delays drawn for one request from the configured distributions.
        package struct SampledDelays: Hashable, Sendable {
            /// The client→server path: waited before stamping T2.
            package var outbound: Duration
            /// The processing time: waited between stamping T2 and T3.
            package var processing: Duration
            /// The server→client path: waited after stamping T3, before sending.
            package var `return`: Duration
        }

        /// The request's number: 1 for the first datagram the server received, counting every
        /// datagram (the numbering ``Behaviour/answerOnly(every:)`` uses).
        package var number: Int
        /// When the datagram was read from the socket, on this machine's wall clock (no offset).
        package var receivedAt: UnixTime
        /// When the datagram was read from the socket, on the boot-time clock.
        package var receivedAtMonotonic: MonotonicInstant
        /// The sender's address and port.
        package var client: SocketAddress
        /// The datagram as received (at most 2048 bytes).
        package var bytes: [UInt8]
        /// The decoded header, or nil when the datagram was too short.
        package var packet: NTPPacket?
        /// Why the datagram could not be decoded, if it could not.
        package var decodingError: SNTPError?
        /// The behaviour applied to this request.
        package var behaviour: Behaviour
        /// The delays drawn for this request (the actual waits can be longer by scheduling latency,
        /// typically well under 0.2 ms); nil when it was dropped on arrival.
        package var delays: SampledDelays?
        /// T2, the instant the server stamped as the receive time, on the server's clock (offset
        /// applied, era exact); nil until stamped or when the request was dropped.
        package var receiveTime: UnixTime?
        /// T3, the instant the server stamped as the transmit time, on the server's clock; nil until
        /// stamped or when the request was dropped.
        package var transmitTime: UnixTime?
        /// The datagrams sent so far, in order.
        package var sent: [SentDatagram]
        /// Datagrams scheduled but not sent yet (for delayed, late or repeated replies).
        package var remainingDatagrams: Int
        /// What the server did.
        package var outcome: Outcome

        /// Whether the server has finished with this request: dropped it, or sent every datagram.
        package var isComplete: Bool { outcome != .pending && remainingDatagrams == 0 }

        /// A one-line summary, as `fake-ntp-server --verbose` prints it.
        package var summary: String {
            var text = "#\(number) from \(client)"
            if let packet {
                text += " v\(packet.version) mode \(packet.mode.rawValue) xmt \(packet.transmitTimestamp)"
            } else if let decodingError {
                text += " \(bytes.count) bytes (\(decodingError))"
            }
            text += " behaviour \(behaviour): "
            switch outcome {
            case .pending: text += "pending"
            case .dropped(let reason): text += "dropped (\(reason))"
            case .replied:
                let ports = sent.map { "\($0.bytes.count) bytes from port \($0.sourcePort)" }
                text += "sent " + ports.joined(separator: ", ")
            }
            return text
        }
    }

    /// The server's request log, shared between its thread and any caller.
    final class RequestLog: Sendable {
        private struct Storage {
            /// The number of `entries[0]`.
            var firstNumber = 1
            var entries: [LoggedRequest] = []
        }

        private let storage = Mutex(Storage())

        /// Adds an entry; its number must be the next one.
        func append(_ entry: LoggedRequest) {
            storage.withLock { storage in
                if storage.entries.isEmpty { storage.firstNumber = entry.number }
                storage.entries.append(entry)
            }
        }

        /// Changes the entry with the given number, if it is still in the log.
        func update(number: Int, _ body: (inout LoggedRequest) -> Void) {
            storage.withLock { storage in
                let index = number - storage.firstNumber
                guard storage.entries.indices.contains(index) else { return }
                body(&storage.entries[index])
            }
        }

        /// Every entry, oldest first.
        var entries: [LoggedRequest] { storage.withLock { $0.entries } }

        /// The entries from the `offset`-th on (0 is the oldest still in the log).
        func entries(from offset: Int) -> [LoggedRequest] {
            storage.withLock { storage in
                guard offset < storage.entries.count else { return [] }
                return Array(storage.entries[max(offset, 0)...])
            }
        }

        /// The number of entries.
        var count: Int { storage.withLock { $0.entries.count } }

        /// The number of entries the server has finished with.
        var completedCount: Int { storage.withLock { $0.entries.count { $0.isComplete } } }

        /// Forgets every entry; requests still in flight keep their numbers but are no longer logged.
        func removeAll() {
            storage.withLock { storage in
                storage.firstNumber += storage.entries.count
                storage.entries.removeAll()
            }
        }
    }
}
