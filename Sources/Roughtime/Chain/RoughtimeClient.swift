import NetClockPlatform
import TimeValues

/// Queries Roughtime servers in a chained measurement sequence (RFC 10049 §8.2) over UDP, blocking
/// the calling thread, and selects the time a majority agrees on (``RoughtimeAgreement``). Each
/// exchange is a ``RoughtimeExchange`` core driven by ``DatagramLoop``; only the monotonic clock
/// times them, and the wall clock is read once, at the end. Why a chain, run twice: the ThreatModel
/// article, "Roughtime" ("Proof of a liar").
package struct RoughtimeClient: Sendable {
    /// How a query runs.
    package struct Options: Hashable, Sendable {
        /// Each exchange's timeout and retransmissions.
        package var timing = RoughtimeExchange.Timing()
        /// How many times the sequence of servers is run. Default 2.
        package var passes = 2
        /// The local monotonic clock's frequency tolerance, in ppm, for round trips and ageing.
        /// Default 15.
        package var frequencyTolerancePPM: Double = FrequencyTolerance.defaultPPM
        /// The fewest agreeing servers that give a time. Default 1 (with a strict majority of the
        /// valid replies always required).
        package var minimumAgreeing = 1
        /// Which address families a server's host names resolve to.
        package var addressFamily: AddressFamily = .any

        /// The defaults.
        package init() {}
    }

    /// The clock that times the exchanges.
    package let monotonic: any MonotonicClock
    /// The wall clock the agreed time is expressed against.
    package let wall: any WallClock
    /// Where nonces come from.
    package let random: any RoughtimeRandomSource

    /// A client on the boot-time clock, the system wall clock and the system CSPRNG; tests inject
    /// their own.
    package init(
        monotonic: any MonotonicClock = BootTimeClock(), wall: any WallClock = SystemWallClock(),
        random: any RoughtimeRandomSource = SystemRoughtimeRandom()
    ) {
        self.monotonic = monotonic
        self.wall = wall
        self.random = random
    }

    /// Queries `servers` and selects the agreed time.
    ///
    /// Never throws: every failure is in the result, per server and overall.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    package func query(
        _ servers: [RoughtimeServer], options: Options = Options(), isCancelled: () -> Bool = { false }
    ) -> RoughtimeQueryResult {
        var reports = servers.map { RoughtimeServerReport(name: $0.name, status: .timedOut) }
        var chain = RoughtimeChain()
        var latest: [Int: RoughtimeMeasurement] = [:]
        var cancelled = false
        passes: for pass in 0..<max(1, options.passes) {
            for (index, server) in servers.enumerated() {
                if isCancelled() {
                    cancelled = true
                    break passes
                }
                if pass > 0 && latest[index] == nil { continue }
                guard
                    let link = ask(
                        server, index: index, chain: chain, report: &reports[index], options, isCancelled)
                else { continue }
                chain.append(link)
                latest[index] = link.measurement
                reports[index].validReplies += 1
            }
        }
        let tolerance = max(options.frequencyTolerancePPM, 0)
        let reference = latest.values.map(\.receivedAt).max() ?? monotonic.now()
        var intervals: [Int: TrueTimeInterval] = [:]
        for (index, measurement) in latest {
            let interval = TrueTimeInterval(measurement, tolerancePPM: tolerance)
                .aged(to: reference, tolerancePPM: tolerance)
            intervals[index] = interval
            reports[index].interval = interval
            reports[index].version = measurement.response.version
            reports[index].midpoint = measurement.response.midpoint
            reports[index].radius = measurement.response.radius
            reports[index].roundTrip = measurement.roundTrip
            reports[index].status = .unresolved
        }
        let agreement: Result<RoughtimeAgreement, RoughtimeError>
        if servers.isEmpty {
            agreement = .failure(RoughtimeError(.noServers, "no Roughtime server to ask"))
        } else if cancelled {
            agreement = .failure(
                RoughtimeError(.cancelled, "cancelled after \(chain.links.count) valid replies"))
        } else {
            let mapping = TimeMapping(wall: wall, monotonic: monotonic)
            agreement = Result { () throws(RoughtimeError) in
                try RoughtimeAgreement.select(
                    intervals, wall: mapping.wallTime(at: reference), reference: reference,
                    minimumAgreeing: options.minimumAgreeing)
            }
        }
        if case .success(let agreed) = agreement {
            for index in agreed.agreeing { reports[index].status = .agreed }
            for index in agreed.falsetickers { reports[index].status = .falseticker }
        }
        return RoughtimeQueryResult(servers: reports, agreement: agreement, chain: chain)
    }

    /// One server's turn in the sequence: its addresses in order (every address a name resolves
    /// to), the same chained request to each, until one gives a valid reply. Updates `report` with
    /// what happened; a server already answered keeps its earlier status.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    private func ask(
        _ server: RoughtimeServer, index: Int, chain: RoughtimeChain, report: inout RoughtimeServerReport,
        _ options: Options, _ isCancelled: () -> Bool
    ) -> RoughtimeChain.Link? {
        let hadReply = report.validReplies > 0
        func fail(_ status: RoughtimeServerReport.Status) {
            if !hadReply { report.status = status }
        }
        guard server.publicKey.count == 32 else {
            fail(
                .failed(
                    RoughtimeError(
                        .invalidServer, "the public key is \(server.publicKey.count) bytes, not 32")))
            return nil
        }
        guard !server.addresses.isEmpty else {
            fail(.failed(RoughtimeError(.invalidServer, "no address")))
            return nil
        }
        let request: RoughtimeRequest
        let rand: [UInt8]
        do throws(RoughtimeError) {
            let length = server.versions.contains(.google) ? 64 : 32
            let next = try chain.nextNonce(length: length, random: random)
            request = try RoughtimeRequest(
                nonce: next.nonce, versions: server.versions, publicKey: server.publicKey)
            rand = next.rand
        } catch {
            fail(.failed(error))
            return nil
        }
        for text in server.addresses {
            let addresses: [SocketAddress]
            do {
                let name = try ServerName.parse(text).get()
                addresses = try Resolver.resolve(
                    name.host, port: name.port ?? RoughtimeServer.defaultPort, family: options.addressFamily,
                    limit: 4)
            } catch {
                report.address = text
                fail(.failed(RoughtimeError(.transport, "\(text): \(error)")))
                continue
            }
            for address in addresses {
                report.address = address.description
                let socket: UDPSocket
                do {
                    socket = try UDPSocket(connectingTo: address)
                } catch {
                    fail(.failed(RoughtimeError(.transport, error.description)))
                    continue
                }
                defer { socket.close() }
                var exchange = RoughtimeExchange(
                    request: request, publicKey: server.publicKey, timing: options.timing)
                let outcome = DatagramLoop.run(
                    &exchange, over: socket, clock: monotonic, isCancelled: isCancelled)
                report.requests += exchange.transmissions
                report.rejections.merge(exchange.rejections)
                switch outcome?.result {
                case .success(let measurement):
                    return RoughtimeChain.Link(
                        server: index, publicKey: server.publicKey, rand: rand, measurement: measurement)
                case .failure(let error) where error.code == .timedOut:
                    fail(.timedOut)
                case .failure(let error) where error.code == .transport || error.code == .cancelled:
                    fail(.failed(error))
                case .failure(let error):
                    fail(.rejected(error))
                case nil:
                    fail(.timedOut)
                }
                if isCancelled() { return nil }
            }
        }
        return nil
    }
}
