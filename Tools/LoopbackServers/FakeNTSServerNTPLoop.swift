import NetClockPlatform
import SNTP
import TimeValues

extension FakeNTSServer {
    /// A reply waiting out ``Configuration/replyDelay``.
    struct PendingReply {
        /// The reply's bytes.
        var bytes: [UInt8]
        /// Where to send it: the request's sender.
        var destination: SocketAddress
    }

    /// The NTP thread: receives datagrams, answers each at once (T2 and T3 stamped on arrival) and
    /// sends the reply after the configured delay. Its mutable state is confined to the thread.
    struct NTPLoop {
        /// The shared state.
        private let core: Core
        /// Replies not yet due.
        private var timers = FakeNTPServer.TimerQueue<PendingReply>()
        /// The receive buffer (larger than any NTS request the server accepts).
        private var buffer = [UInt8](repeating: 0, count: 9_000)
        /// This machine's real-time clock.
        private let wallClock = SystemWallClock()
        /// The clock that schedules delayed replies.
        private let monotonicClock = BootTimeClock()

        /// A loop over `core`'s socket.
        init(core: Core) {
            self.core = core
        }

        /// Serves until a stop is requested; delayed replies not yet sent are dropped.
        mutating func run() {
            while !core.isStopRequested.load(ordering: .acquiring) {
                waitForWork()
                if core.isStopRequested.load(ordering: .acquiring) { break }
                receiveWaitingDatagrams()
                while let due = timers.popDue(now: monotonicClock.now()) {
                    try? core.socket.send(due.bytes, to: due.destination)
                }
            }
        }

        /// Blocks until a datagram or a wake-up arrives, or the next reply is due; the last
        /// millisecond before a reply is slept out in short steps (`poll` counts whole milliseconds).
        private func waitForWork() {
            var timeout: Int32 = 1_000
            var shortSleep: Duration?
            if let due = timers.nextDue {
                let wait = due - monotonicClock.now()
                if wait <= .zero {
                    timeout = 0
                } else if wait < .milliseconds(1) {
                    timeout = 0
                    shortSleep = min(wait, .microseconds(200))
                } else {
                    let (seconds, attoseconds) = wait.components
                    timeout = Int32(clamping: min(seconds, 1) * 1_000 + attoseconds / 1_000_000_000_000_000)
                }
            }
            switch core.socket.waitForDatagram(orWakeFrom: core.ntpWake, milliseconds: timeout) {
            case .woken: core.ntpWake.drain()
            case .timedOut: if let shortSleep { Syscalls.sleep(shortSleep) }
            case .readable: break
            }
        }

        /// Handles up to 64 waiting datagrams.
        private mutating func receiveWaitingDatagrams() {
            for _ in 0..<64 {
                switch core.socket.receive(into: &buffer) {
                case .empty: return
                case .ignored: continue
                case .datagram(let count, let sender):
                    handle(Array(buffer[..<min(count, buffer.count)]), from: sender)
                }
            }
        }

        /// Answers one datagram and records what happened.
        private mutating func handle(_ bytes: [UInt8], from sender: SocketAddress) {
            let receivedAt = monotonicClock.now()
            let configuration = core.configuration.withLock { $0 }
            let receiveTime = wallClock.now() + configuration.offset
            let transmitTime = wallClock.now() + configuration.offset
            let outcome = NTPResponder.respond(
                to: bytes, receiveTime: receiveTime, transmitTime: transmitTime, configuration: configuration,
                jar: core.jar)
            core.record { statistics in
                if let rejection = outcome.rejection { statistics.rejected[rejection, default: 0] += 1 }
                if outcome.plain { statistics.plainRequests += 1 }
                if outcome.authenticated { statistics.authenticatedRequests += 1 }
                if let uniqueIdentifier = outcome.uniqueIdentifier {
                    statistics.lastUniqueIdentifier = uniqueIdentifier
                }
                if let cookie = outcome.cookie { statistics.recordPresented(cookie) }
                statistics.cookiesIssued += outcome.cookiesIssued
            }
            guard let reply = outcome.reply else { return }
            if configuration.replyDelay <= .zero {
                try? core.socket.send(reply, to: sender)
            } else {
                timers.insert(
                    PendingReply(bytes: reply, destination: sender), at: receivedAt + configuration.replyDelay
                )
            }
        }
    }
}
