import NTS
import NetClockPlatform
import NetClockTLS
import NetClockTestSupport

extension FakeNTSServer {
    /// The NTS-KE thread: accepts one TCP connection at a time on the listener and serves it
    /// (RFC 8915 §4), every wait bounded by ``timeout`` and ended early by a stop. A client that
    /// stalls holds the next ones back (at most one ``timeout`` each for the handshake, the request
    /// and the response); the kernel queues their connections meanwhile.
    enum KESession {
        /// The bound on the handshake, on reading the request, and on writing the response.
        static let timeout = Duration.seconds(5)

        /// Serves connections until the server stops.
        static func run(core: Core) {
            while !core.isStopRequested.load(ordering: .acquiring) {
                switch core.listener.waitForConnection(orWakeFrom: core.keStop, milliseconds: 1_000) {
                case .woken: return
                case .timedOut: continue
                case .readable:
                    guard let connection = core.listener.accept() else { continue }
                    core.activeConnection.withLock { $0 = connection }
                    serve(AcceptedByteStream(connection, stop: core.keStop), core: core)
                    core.activeConnection.withLock { $0 = nil }
                    connection.close()
                }
            }
        }

        /// The TLS configuration `configuration`'s behaviour calls for.
        static func tlsConfiguration(_ configuration: Configuration) -> TLSServerConfiguration {
            var chain = configuration.certificateChainFile
            var key = configuration.privateKeyFile
            if case .keCertificate(let otherChain, let otherKey) = configuration.behaviour {
                (chain, key) = (otherChain, otherKey)
            }
            let tls12 = configuration.behaviour == .keTLS12Only
            return TLSServerConfiguration(
                certificateChainFile: chain, privateKeyFile: key,
                applicationProtocols: configuration.behaviour == .keNoALPN ? [] : [NTSKEConstants.alpn],
                minimumVersion: tls12 ? .tls12 : .tls13, maximumVersion: tls12 ? .tls12 : nil)
        }

        /// Runs the handshake, reads the request, answers it and closes the connection.
        static func serve(_ transport: AcceptedByteStream, core: Core) {
            let configuration = core.configuration.withLock { $0 }
            let connection: TLSConnection
            do {
                connection = try TLSConnection.accept(
                    over: transport, configuration: tlsConfiguration(configuration), timeout: timeout)
            } catch {
                core.record { $0.keFailures += 1 }
                return
            }
            core.record {
                $0.keHandshakes += 1
                $0.lastRequestedServerName = connection.requestedServerName
            }
            defer { connection.close() }
            guard let request = readRequest(connection),
                let response = response(
                    to: request, connection: connection, configuration: configuration, core: core)
            else {
                core.record { $0.keFailures += 1 }
                return
            }
            core.record {
                $0.keResponses += 1
                $0.cookiesIssued += response.cookies
            }
            try? connection.write(response.bytes, timeout: timeout)
        }

        /// The request's records before End of Message, or nil when it is malformed, too large,
        /// incomplete when the connection ends, or late.
        static func readRequest(_ connection: TLSConnection) -> [NTSKERecord]? {
            var reader = KERequestReader()
            while true {
                guard case .bytes(let bytes) = try? connection.read(maximum: 4_096, timeout: timeout) else {
                    return nil
                }
                switch reader.consume(bytes) {
                case .needMoreBytes: continue
                case .invalid: return nil
                case .complete(let records): return records
                }
            }
        }

        /// The response bytes and the number of cookies in them, or nil when the keys cannot be
        /// exported or a record cannot be encoded.
        static func response(
            to request: [NTSKERecord], connection: TLSConnection, configuration: Configuration, core: Core
        ) -> (bytes: [UInt8], cookies: Int)? {
            if let code = KEResponse.errorCode(forRequest: request) {
                let bytes =
                    NTSKERecord(critical: true, type: .error, value: code).encoded()
                    + NTSKERecord(critical: true, type: .endOfMessage).encoded()
                return (bytes, 0)
            }
            guard
                let c2s = try? connection.exportKeyingMaterial(
                    label: NTSKeyExport.label, context: NTSKeyExport.context(direction: .clientToServer),
                    length: NTSKeyExport.aesSIVKeyLength),
                let s2c = try? connection.exportKeyingMaterial(
                    label: NTSKeyExport.label, context: NTSKeyExport.context(direction: .serverToClient),
                    length: NTSKeyExport.aesSIVKeyLength)
            else { return nil }
            let keys = CookieJar.Keys(c2s: c2s, s2c: s2c)
            let count = min(max(configuration.cookieCount, 0), NTSKEResponse.maximumCookies)
            let cookies = (0..<count).compactMap { _ in core.jar.cookie(for: keys) }
            guard
                let bytes = try? KEResponse.bytes(
                    cookies: cookies, ntpPort: core.ntpPort, serverName: configuration.serverNegotiation,
                    behaviour: configuration.behaviour)
            else { return nil }
            let issued: Int
            switch configuration.behaviour {
            case .keNoCookies, .keErrorRecord: issued = 0
            default: issued = cookies.count
            }
            return (bytes, issued)
        }
    }
}
