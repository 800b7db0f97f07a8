import NetClockPlatform
import NetClockTestSupport
import SNTP
import Synchronization
import TimeValues

extension FakeNTPServer {
    /// What the server object and its thread share: the sockets, the configuration, the log.
    final class Core: Sendable {
        let socket: UDPServerSocket
        let otherSocket: UDPServerSocket
        let wake: WakeChannel
        let configuration: Mutex<Configuration>
        let log = RequestLog()
        let isStopRequested = Atomic<Bool>(false)
        /// The machine's clock the server's is derived from (the system wall clock, or a simulated
        /// one in tests).
        let clock: any WallClock
        /// The clock's reading when the server started, from which ``Configuration/frequencyPPM``
        /// counts.
        let startedAt: UnixTime

        init(
            socket: UDPServerSocket, otherSocket: UDPServerSocket, wake: WakeChannel,
            configuration: Configuration, clock: any WallClock
        ) {
            self.socket = socket
            self.otherSocket = otherSocket
            self.wake = wake
            self.configuration = Mutex(configuration)
            self.clock = clock
            self.startedAt = clock.now()
        }

        /// The server's clock now under `configuration`: the machine's clock plus the offset plus
        /// the gain since the start.
        func serverTime(_ configuration: Configuration) -> UnixTime {
            let now = clock.now()
            guard configuration.frequencyPPM != 0, configuration.frequencyPPM.isFinite else {
                return configuration.applyingLeap(to: now + configuration.offset).time
            }
            return configuration.applyingLeap(
                to: now + configuration.offset + (now - startedAt) * (configuration.frequencyPPM * 1e-6)
            ).time
        }

        /// Asks the server thread to finish and wakes it.
        func requestStop() {
            isStopRequested.store(true, ordering: .releasing)
            wake.wake()
        }

        /// Releases every descriptor (after the thread has finished).
        func close() {
            socket.close()
            otherSocket.close()
            wake.close()
        }
    }

    /// A request on its way through the simulated paths.
    struct Job {
        enum Stage {
            /// Waiting for the outbound delay to pass before stamping T2.
            case stampReceive
            /// Waiting for the processing delay to pass before stamping T3.
            case stampTransmit(receiveTime: UnixTime)
            /// Waiting for the return delay (and any extra delay) to pass before sending.
            case send(Transmission)
        }

        var number: Int
        var client: SocketAddress
        var request: NTPPacket
        var configuration: Configuration
        var behaviour: Behaviour
        var previousNonce: NTPTimestamp?
        var processingDelay: Duration
        var returnDelay: Duration
        var stage: Stage
    }

    /// The server thread: waits for datagrams and for scheduled work, and does both on time. All its
    /// mutable state is confined to the thread.
    struct EventLoop {
        private let core: Core
        private var timers = TimerQueue<Job>()
        private var seed: UInt64
        private var generator: SplitMix64
        private var requestCount = 0
        private var previousNonce: NTPTimestamp?
        private var buffer = [UInt8](repeating: 0, count: 2048)
        private let monotonicClock = BootTimeClock()

        init(core: Core) {
            self.core = core
            self.seed = core.configuration.withLock { $0.seed }
            self.generator = SplitMix64(seed: seed)
        }

        /// Serves until a stop is requested, then marks unfinished requests as dropped.
        mutating func run() {
            while !core.isStopRequested.load(ordering: .acquiring) {
                waitForWork()
                if core.isStopRequested.load(ordering: .acquiring) { break }
                receiveWaitingDatagrams()
                runDueJobs()
            }
            for job in timers.removeAll() {
                core.log.update(number: job.number) { entry in
                    entry.remainingDatagrams = 0
                    if entry.outcome == .pending { entry.outcome = .dropped(reason: "server stopped") }
                }
            }
        }

        /// Blocks until a datagram or a wake-up arrives, or the next job is due. `poll` counts whole
        /// milliseconds, so the last millisecond before a job is waited out in short sleeps instead.
        private func waitForWork() {
            var timeout: Int32 = -1
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
                    let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
                    let whole =
                        milliseconds.overflow
                        ? Int64(Int32.max) : milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
                    timeout = Int32(clamping: whole)
                }
            }
            switch core.socket.waitForDatagram(orWakeFrom: core.wake, milliseconds: timeout) {
            case .woken: core.wake.drain()
            case .timedOut: if let shortSleep { Syscalls.sleep(shortSleep) }
            case .readable: break
            }
        }

        private mutating func receiveWaitingDatagrams() {
            for _ in 0..<64 {
                switch core.socket.receive(into: &buffer) {
                case .empty: return
                case .ignored: continue
                case .datagram(let count, let sender): handleDatagram(count: count, from: sender)
                }
            }
        }

        private mutating func handleDatagram(count: Int, from client: SocketAddress) {
            let receivedAtMonotonic = monotonicClock.now()
            let receivedAt = core.clock.now()
            requestCount += 1
            let number = requestCount
            var configuration: Configuration
            let behaviour: Behaviour
            (configuration, behaviour) = core.configuration.withLock { configuration in
                let behaviour =
                    configuration.nextBehaviours.isEmpty
                    ? configuration.behaviour : configuration.nextBehaviours.removeFirst()
                return (configuration, behaviour)
            }
            if configuration.seed != seed {
                seed = configuration.seed
                generator = SplitMix64(seed: seed)
            }
            let bytes = Array(buffer[..<min(count, buffer.count)])
            var entry = LoggedRequest(
                number: number, receivedAt: receivedAt, receivedAtMonotonic: receivedAtMonotonic,
                client: client, bytes: bytes, packet: nil, decodingError: nil, behaviour: behaviour,
                delays: nil, receiveTime: nil, transmitTime: nil, sent: [], remainingDatagrams: 0,
                outcome: .pending)
            let request: NTPPacket
            do {
                request = try NTPPacket(decoding: bytes)
            } catch {
                entry.decodingError = error
                entry.outcome = .dropped(reason: "\(error)")
                core.log.append(entry)
                return
            }
            entry.packet = request
            // A stepped clock is the configured one moved for this request: T2 and T3 both.
            if case .steppedClock(let step) = behaviour { configuration.offset += step }
            let previous = previousNonce
            previousNonce = request.transmitTimestamp
            if request.mode != .client {
                entry.outcome = .dropped(reason: "not a client request (mode \(request.mode.rawValue))")
            } else if behaviour.dropsRequest(number: number) {
                entry.outcome = .dropped(reason: "behaviour \(behaviour)")
            }
            guard entry.outcome == .pending else {
                core.log.append(entry)
                return
            }
            // Always sampled in this order, so a seed gives the same delays on every run.
            let outbound = configuration.outboundDelay.sample(using: &generator)
            let processing = configuration.processingDelay.sample(using: &generator)
            let returnDelay = configuration.returnDelay.sample(using: &generator)
            entry.delays = LoggedRequest.SampledDelays(
                outbound: outbound, processing: processing, return: returnDelay)
            core.log.append(entry)
            let job = Job(
                number: number, client: client, request: request, configuration: configuration,
                behaviour: behaviour, previousNonce: previous, processingDelay: processing,
                returnDelay: returnDelay, stage: .stampReceive)
            timers.insert(job, at: receivedAtMonotonic + outbound)
        }

        private mutating func runDueJobs() {
            while let job = timers.popDue(now: monotonicClock.now()) {
                run(job)
            }
        }

        private mutating func run(_ job: Job) {
            var job = job
            switch job.stage {
            case .stampReceive:
                let receiveTime = core.serverTime(job.configuration)
                core.log.update(number: job.number) { $0.receiveTime = receiveTime }
                job.stage = .stampTransmit(receiveTime: receiveTime)
                timers.insert(job, at: monotonicClock.now() + job.processingDelay)
            case .stampTransmit(let receiveTime):
                let transmitTime = core.serverTime(job.configuration)
                let sendAt = monotonicClock.now() + job.returnDelay
                var correct = ReplyBuilder.correctReply(
                    to: job.request, receiveTime: receiveTime, transmitTime: transmitTime,
                    configuration: job.configuration)
                // Once the leap is applied, it is no longer announced.
                if let midnight = job.configuration.leapMidnight,
                    job.configuration.smear || receiveTime >= midnight - .seconds(1)
                {
                    correct.leap = .noWarning
                }
                let transmissions = ReplyBuilder.transmissions(
                    for: job.behaviour, request: job.request, correct: correct,
                    previousNonce: job.previousNonce, generator: &generator)
                core.log.update(number: job.number) { entry in
                    entry.transmitTime = transmitTime
                    entry.remainingDatagrams = transmissions.count
                    if transmissions.isEmpty {
                        entry.outcome = .dropped(reason: "behaviour \(job.behaviour)")
                    }
                }
                for transmission in transmissions {
                    var sendJob = job
                    sendJob.stage = .send(transmission)
                    timers.insert(sendJob, at: sendAt + transmission.extraDelay)
                }
            case .send(let transmission):
                send(transmission, for: job)
            }
        }

        private func send(_ transmission: Transmission, for job: Job) {
            let socket = transmission.fromOtherPort ? core.otherSocket : core.socket
            let record = LoggedRequest.SentDatagram(
                bytes: transmission.bytes, sentAt: core.clock.now(), sentAtMonotonic: monotonicClock.now(),
                sourcePort: socket.localAddress.port, failure: nil)
            // Logged before sending, so a client that has the reply also finds it in the log.
            var index = 0
            core.log.update(number: job.number) { entry in
                index = entry.sent.count
                entry.sent.append(record)
                entry.remainingDatagrams = max(entry.remainingDatagrams - 1, 0)
                entry.outcome = .replied
            }
            do {
                try socket.send(transmission.bytes, to: job.client)
            } catch {
                let reason = error.description
                core.log.update(number: job.number) { entry in
                    if entry.sent.indices.contains(index) { entry.sent[index].failure = reason }
                }
            }
        }
    }
}
