import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// The client side of NTS Key Establishment (RFC 8915 §4): TLS 1.3 to the NTS-KE server with
/// ALPN `ntske/1` required, the request records, the response parsed by the bounded
/// ``NTSKEResponseParser``, and the two AES-SIV keys exported from the TLS session.
package enum NTSKeyExchange {
    /// How long a key exchange may take when the caller gives no tighter deadline.
    package static let defaultTimeout: Duration = .seconds(5)
    /// The most addresses of the NTS-KE host tried, in the resolver's order, until one connects.
    package static let addressesTried = 4
    /// The largest response read, in bytes (the parser's cap; eight 100-byte cookies need 1 KiB).
    package static let maximumResponseSize = NTSKEResponseParser.defaultMaximumSize

    /// Runs one key exchange with `server` (host and NTS-KE port) and returns its keys and cookies.
    ///
    /// Every step (name lookup, TCP connect, TLS handshake, request, response) shares one deadline,
    /// `timeout` after the call, on the boot-time clock. `isCancelled` is checked between steps,
    /// while connecting, and by the TLS layer before each of its waits (at most
    /// ``CancellableWait/slice`` each), so a cancelled exchange gives its thread back within one
    /// slice whatever the server does.
    /// - Throws: ``NTSFailure``: TLS and certificate failures as `nts_ke_tls_<code>` (a server that
    ///   answers the handshake with close_notify as `nts_ke_tls_closed`), a handshake without ALPN
    ///   `ntske/1` as `nts_ke_no_alpn`, refused responses as `nts_ke_<parser code>` (e.g.
    ///   `nts_ke_server_error`, `nts_ke_unknown_critical_record`, `nts_ke_no_cookies`,
    ///   `nts_ke_truncated`), a response with a Warning record as `nts_ke_warning`, the deadline as
    ///   `nts_ke_timeout` (or `nts_ke_tls_timed_out` inside a TLS call), and cancellation as
    ///   `cancelled`.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    package static func run(
        with server: ServerName, trust: TLSClientConfiguration.TrustRoots,
        family: AddressFamily = .any, certificateTime: CertificateTime = .wallClock,
        timeout: Duration = defaultTimeout, isCancelled: () -> Bool = { false }
    ) throws(NTSFailure) -> NTSKeyExchangeResult {
        // The TLS connection keeps the flag for its lifetime, which ends inside `exchange`.
        try withoutActuallyEscaping(isCancelled) { isCancelled throws(NTSFailure) in
            try establish(
                with: server, trust: trust, family: family, certificateTime: certificateTime,
                timeout: timeout,
                isCancelled: isCancelled)
        }
    }

    /// ``run(with:trust:family:timeout:isCancelled:)`` with a flag the TLS connection may keep
    /// until this returns.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    private static func establish(
        with server: ServerName, trust: TLSClientConfiguration.TrustRoots, family: AddressFamily,
        certificateTime: CertificateTime, timeout: Duration, isCancelled: @escaping () -> Bool
    ) throws(NTSFailure) -> NTSKeyExchangeResult {
        let name = server.description
        let end = Syscalls.clockTime(.bootTime) + timeout
        func remaining() throws(NTSFailure) -> Duration {
            if isCancelled() { throw .cancelled(name) }
            let left = end - Syscalls.clockTime(.bootTime)
            guard left > .zero else { throw .timedOut(name, after: timeout) }
            return left
        }
        /// A TLS failure as NTS reports it: an abandoned connection is a cancelled query.
        func failure(_ error: TLSError) -> NTSFailure {
            error.code == .abandoned ? .cancelled(name) : NTSFailure(error, server: name)
        }
        let addresses: [SocketAddress]
        do {
            addresses = try Resolver.resolve(
                server.host, port: server.effectivePort, family: family, limit: addressesTried,
                socketKind: .stream)
        } catch {
            throw NTSFailure(error, server: name)
        }
        let transport = try connect(to: addresses, server: name, remaining: remaining)
        var configuration = TLSClientConfiguration(
            minimumVersion: .tls13, applicationProtocols: [NTSKEConstants.alpn], trustRoots: trust)
        configuration.certificateTime = certificateTime
        let connection: TLSConnection
        do {
            connection = try TLSConnection.connect(
                over: transport, serverName: server.host, configuration: configuration,
                timeout: try remaining(), isAbandoned: isCancelled)
        } catch let error as NTSFailure {
            transport.close()
            throw error
        } catch let error as TLSError {
            throw failure(error)
        } catch {
            transport.close()
            throw NTSFailure(.keTransport, "NTS-KE with \(name): \(error)")
        }
        defer { connection.close() }
        guard connection.negotiatedProtocol == NTSKEConstants.alpn else {
            throw NTSFailure(
                .keNoALPN,
                "NTS-KE with \(name): the server finished TLS without agreeing on ALPN ntske/1")
        }
        let response = try exchange(on: connection, server: name, remaining: remaining, failure: failure)
        // No warning codes are defined (RFC 8915 §7.6), so any is one we do not understand: refused,
        // as chrony does, rather than guessing it harmless.
        guard response.warnings.isEmpty else {
            throw NTSFailure(
                .keWarning,
                "NTS-KE with \(name): the server sent Warning "
                    + response.warnings.map(String.init).joined(separator: ", ")
                    + ", which this client does not understand")
        }
        let clientToServer: [UInt8]
        let serverToClient: [UInt8]
        do {
            clientToServer = try connection.exportKeyingMaterial(
                label: NTSKeyExport.label,
                context: NTSKeyExport.context(aead: response.aead, direction: .clientToServer),
                length: NTSKeyExport.aesSIVKeyLength)
            serverToClient = try connection.exportKeyingMaterial(
                label: NTSKeyExport.label,
                context: NTSKeyExport.context(aead: response.aead, direction: .serverToClient),
                length: NTSKeyExport.aesSIVKeyLength)
        } catch {
            throw failure(error)
        }
        return NTSKeyExchangeResult(
            keyExchangeAddress: transport.remote, ntpHost: response.server ?? transport.remote.host,
            ntpPort: response.port ?? ServerName.defaultPort, aead: response.aead,
            clientToServerKey: clientToServer, serverToClientKey: serverToClient, cookies: response.cookies,
            warnings: response.warnings, certificateTime: certificateTime,
            certificateChain: connection.verifiedChain)
    }

    /// A TCP connection to the first of `addresses` that accepts one.
    private static func connect(
        to addresses: [SocketAddress], server: String, remaining: () throws(NTSFailure) -> Duration
    ) throws(NTSFailure) -> TCPConnection {
        var firstError: TransportError?
        for address in addresses {
            do {
                let connection = try TCPConnection(startingConnectionTo: address)
                while true {
                    let left = try remaining()
                    if try connection.waitUntilConnected(timeout: min(left, CancellableWait.slice)) {
                        return connection
                    }
                }
            } catch let error as TransportError {
                if firstError == nil { firstError = error }
            } catch let error as NTSFailure {
                throw error
            } catch {
                continue
            }
        }
        throw NTSFailure(firstError ?? .noAddresses(host: server), server: server)
    }

    /// Sends the request records and reads the response until End of Message.
    private static func exchange(
        on connection: TLSConnection, server: String, remaining: () throws(NTSFailure) -> Duration,
        failure: (TLSError) -> NTSFailure
    ) throws(NTSFailure) -> NTSKEResponse {
        do {
            try connection.write(NTSKERequest.encoded(), timeout: try remaining())
        } catch let error as NTSFailure {
            throw error
        } catch let error as TLSError {
            throw failure(error)
        } catch {
            throw NTSFailure(.keTransport, "NTS-KE with \(server): \(error)")
        }
        var parser = NTSKEResponseParser(maximumSize: maximumResponseSize)
        while true {
            let received: TLSConnection.Received
            do {
                received = try connection.read(maximum: 16_384, timeout: try remaining())
            } catch let error as NTSFailure {
                throw error
            } catch let error as TLSError {
                if error.code == .closed {
                    throw NTSFailure(
                        .keTruncated,
                        "NTS-KE with \(server): the connection closed before End of Message")
                }
                throw failure(error)
            } catch {
                throw NTSFailure(.keTransport, "NTS-KE with \(server): \(error)")
            }
            do {
                switch received {
                case .endOfStream:
                    throw NTSError(.truncated, "the server closed the session before End of Message")
                case .bytes(let bytes):
                    if case .complete(let response) = try parser.consume(bytes) { return response }
                }
            } catch let error as NTSError {
                throw NTSFailure(error, server: server)
            } catch {
                throw NTSFailure(.keTransport, "NTS-KE with \(server): \(error)")
            }
        }
    }
}

/// What one NTS-KE exchange (RFC 8915 §4) gave: the keys, the cookies and where to send NTP.
package struct NTSKeyExchangeResult: Sendable {
    /// The NTS-KE server's address the TLS connection went to.
    package var keyExchangeAddress: SocketAddress
    /// The NTP host: the NTPv4 Server Negotiation record's, else the NTS-KE server's address.
    package var ntpHost: String
    /// The NTP port: the NTPv4 Port Negotiation record's, else 123.
    package var ntpPort: UInt16
    /// The AEAD algorithm agreed (15, AES-SIV-CMAC-256).
    package var aead: UInt16
    /// The client-to-server key (requests).
    package var clientToServerKey: [UInt8]
    /// The server-to-client key (replies).
    package var serverToClientKey: [UInt8]
    /// The cookies handed over, in order.
    package var cookies: [[UInt8]]
    /// The Warning codes the server sent.
    package var warnings: [UInt16]
    /// The time the server's certificates were checked against.
    package var certificateTime: CertificateTime = .wallClock
    /// The validity periods of the verified chain, leaf first.
    package var certificateChain: [CertificateValidity] = []
}
