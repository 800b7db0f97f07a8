import NetClockPlatform
import Roughtime
import SNTP
import TimeValues

extension FakeRoughtimeServer {
    /// A reply waiting out ``Configuration/replyDelay``.
    struct PendingReply {
        var bytes: [UInt8]
        var destination: SocketAddress
    }

    /// The server thread: gathers requests into batches (``Configuration/batchWindow`` after a
    /// batch's first request, or ``Configuration/maximumBatch`` requests), answers each batch at one
    /// instant and sends the replies, delayed as configured. Its state is confined to the thread.
    struct Loop {
        private let core: Core
        private var responder: Responder
        /// Requests of the batch being gathered, with their senders.
        private var batch: [(bytes: [UInt8], sender: SocketAddress)] = []
        /// When the batch being gathered is answered.
        private var batchDue: MonotonicInstant?
        private var timers = FakeNTPServer.TimerQueue<PendingReply>()
        /// Requests received so far (for ``Configuration/ignoredRequests``).
        private var received = 0
        private var buffer = [UInt8](repeating: 0, count: 65_536)
        private let monotonic = BootTimeClock()
        private let wall = SystemWallClock()

        init(core: Core, responder: Responder) {
            self.core = core
            self.responder = responder
        }

        /// Serves until a stop is requested.
        mutating func run() {
            while !core.isStopRequested.load(ordering: .acquiring) {
                waitForWork()
                if core.isStopRequested.load(ordering: .acquiring) { break }
                receiveWaitingDatagrams()
                let configuration = core.configuration.withLock { $0 }
                if let due = batchDue, monotonic.now() >= due || batch.count >= configuration.maximumBatch {
                    answerBatch(configuration)
                }
                while let due = timers.popDue(now: monotonic.now()) {
                    send(due.bytes, to: due.destination)
                }
            }
        }

        /// Blocks until a datagram or a wake-up arrives, or the batch or the next reply is due.
        private func waitForWork() {
            let next = [batchDue, timers.nextDue].compactMap { $0 }.min()
            var timeout: Int32 = 1_000
            if let next {
                let wait = next - monotonic.now()
                let (seconds, attoseconds) = wait.components
                timeout =
                    wait <= .zero
                    ? 0
                    : Int32(
                        clamping: min(seconds, 1) * 1_000 + (attoseconds + 999_999_999_999_999)
                            / 1_000_000_000_000_000)
            }
            if case .woken = core.socket.waitForDatagram(orWakeFrom: core.wake, milliseconds: timeout) {
                core.wake.drain()
            }
        }

        /// Adds up to 256 waiting datagrams to the batch.
        private mutating func receiveWaitingDatagrams() {
            for _ in 0..<256 {
                switch core.socket.receive(into: &buffer) {
                case .empty: return
                case .ignored: continue
                case .datagram(let count, let sender):
                    received += 1
                    let (window, ignored) = core.configuration.withLock {
                        ($0.batchWindow, $0.ignoredRequests)
                    }
                    guard received > ignored else {
                        core.statistics.withLock {
                            $0.requests += 1
                            $0.dropped += 1
                            $0.lastDropReason = "ignored (lost)"
                        }
                        continue
                    }
                    if batch.isEmpty { batchDue = monotonic.now() + max(window, .zero) }
                    batch.append((Array(buffer[..<min(count, buffer.count)]), sender))
                    core.statistics.withLock { $0.requests += 1 }
                }
            }
        }

        /// Answers the gathered batch and sends (or schedules) its replies.
        private mutating func answerBatch(_ configuration: Configuration) {
            let requests = batch
            batch = []
            batchDue = nil
            let answers = responder.answer(
                requests.map(\.bytes), at: wall.now(), configuration: configuration)
            let receivedAt = monotonic.now()
            core.statistics.withLock { statistics in
                statistics.batches += 1
                statistics.largestBatch = max(
                    statistics.largestBatch, answers.filter { $0.reply != nil }.count)
                for answer in answers {
                    if answer.reply != nil {
                        statistics.replies += 1
                        statistics.longestPath = max(statistics.longestPath, answer.pathLength)
                        if let version = answer.version {
                            statistics.repliesByVersion[version, default: 0] += 1
                        }
                    } else {
                        statistics.dropped += 1
                        statistics.lastDropReason = answer.dropped
                    }
                }
            }
            for (answer, request) in zip(answers, requests) {
                guard let reply = answer.reply else { continue }
                if configuration.replyDelay <= .zero {
                    send(reply, to: request.sender)
                } else {
                    timers.insert(
                        PendingReply(bytes: reply, destination: request.sender),
                        at: receivedAt + configuration.replyDelay)
                }
            }
        }

        private func send(_ bytes: [UInt8], to destination: SocketAddress) {
            try? core.socket.send(bytes, to: destination)
        }
    }
}
