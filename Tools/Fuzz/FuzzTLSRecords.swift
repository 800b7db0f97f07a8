// libFuzzer target: the TLS client engine (NetClockTLS's TLSConnection and its OpenSSL loop)
// against whatever a server sends, over an in-memory transport.
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform and NetClockTLS
// compiled for fuzzing (and OpenSSL); it uses their `package` API. Not part of the Swift package.
//
// The client trusts one throwaway CA whose key was discarded (below; the system store would cost
// tens of milliseconds a run to load), so no input can be signed for it.
//
// Input layout: byte 0 chooses the client (bit 0: the NTS-KE client, TLS 1.3 with ALPN ntske/1,
// else the https:// one, TLS 1.2 or 1.3 without ALPN; bit 1: a host name, else an IP address to
// verify). The rest is what the server sends, as events: a length byte n, then n bytes that one
// receive returns (fewer when the input ends); n = 0 is a receive that waited and got nothing (a
// timeout). After the last event the stream ends (FIN).
//
// Invariants — termination with bounded work, not only no crash:
// - the handshake never finishes (nobody can sign for the CA: a finished handshake is the
//   close_notify-as-success defect of issue 18);
// - it fails with a code that bytes can cause (never `timedOut`, `abandoned` or `configuration`:
//   the transport never blocks and the deadline is a minute away);
// - the engine's loops go round at most 64 + 8 × (input bytes) times in all — counted by the
//   abandon flag, which every round of every loop checks — and a loop that does not check it at
//   all would hang past libFuzzer's -timeout;
// - the client sends at most 4 KiB plus one byte per input byte (a ClientHello, a second one after
//   a HelloRetryRequest, alerts), and receives at most once per event, plus the end of the stream.

import NetClockPlatform
import NetClockTLS

#if canImport(Glibc)
    import Glibc
#endif

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzTLSRecords invariant violated: \(message())")
    }
}

/// A CA certificate made for this harness with its private key sent to /dev/null.
private let trustedCA = """
    -----BEGIN CERTIFICATE-----
    MIIBqzCCAVGgAwIBAgIUH3sIct7TcYBWJRV+CzzDcFT716swCgYIKoZIzj0EAwIw
    KzEpMCcGA1UEAwwgTmV0Q2xvY2sgZnV6eiBDQSAoa2V5IGRpc2NhcmRlZCkwHhcN
    MjYxMjAxMjIxMDQyWhcNMzYxMTI4MjIxMDQyWjArMSkwJwYDVQQDDCBOZXRDbG9j
    ayBmdXp6IENBIChrZXkgZGlzY2FyZGVkKTBZMBMGByqGSM49AgEGCCqGSM49AwEH
    A0IABJH4p2iUI14KtEdvJMQl2sZpkJ+sB9vBCWgX7wIUUiC+l8UN+EKzbk55vtUM
    Og19X2TjOgM7d8PpTHzbLW3P4EejUzBRMB0GA1UdDgQWBBRsSXRTW3p8VQr4oFFY
    F+Y+yIvU7DAfBgNVHSMEGDAWgBRsSXRTW3p8VQr4oFFYF+Y+yIvU7DAPBgNVHRMB
    Af8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQDHYt3/5A9umXXbwLxMKp/JntDl
    wk5WD4DMbd0oNeYtuAIgJ8M/Gq2p4KS9VTtVu5T+rVTt6mu0OQQO2Pn/biUOPBc=
    -----END CERTIFICATE-----
    """

/// Where the CA is written for OpenSSL to load.
private let caPath = "/tmp/netclock-fuzz-tls-ca-\(getpid()).pem"

/// The CA's file, written on first use and removed when the process exits.
private let caFile: String = {
    guard let file = fopen(caPath, "w") else { fatalError("cannot write \(caPath)") }
    fputs(trustedCA + "\n", file)
    fclose(file)
    atexit { _ = unlink(caPath) }
    return caPath
}()

/// One thing the server's side of the transport does when the client receives.
private enum Event {
    /// These bytes arrive.
    case bytes([UInt8])
    /// The wait times out with nothing.
    case timeout
}

/// The events of `input` (see the file comment).
private func events(_ input: ArraySlice<UInt8>) -> [Event] {
    var events: [Event] = []
    var index = input.startIndex
    while index < input.endIndex {
        let length = Int(input[index])
        index += 1
        if length == 0 {
            events.append(.timeout)
            continue
        }
        let end = min(input.endIndex, index + length)
        events.append(.bytes(Array(input[index..<end])))
        index = end
    }
    return events
}

/// The server's side, in memory: plays the events, takes every byte sent, counts both.
private final class ScriptedServer: ByteStream {
    private let events: [Event]
    private var next = 0
    private(set) var receives = 0
    private(set) var sent = 0
    private(set) var isClosed = false

    init(_ events: [Event]) { self.events = events }

    var peer: String { "the fuzzed server" }

    func send(_ bytes: ArraySlice<UInt8>, timeout: Duration) throws(TransportError) -> Int {
        require(!isClosed, "a send after close")
        sent += bytes.count
        return bytes.count
    }

    func receive(maximum: Int, timeout: Duration) throws(TransportError) -> ReceivedBytes {
        require(!isClosed, "a receive after close")
        require(timeout > .zero && timeout <= CancellableWait.slice, "a wait of \(timeout)")
        receives += 1
        guard next < events.count else { return .endOfStream }
        defer { next += 1 }
        switch events[next] {
        case .timeout: return .timedOut
        case .bytes(let bytes): return .bytes(Array(bytes.prefix(maximum)))
        }
    }

    func close() { isClosed = true }
}

/// Counts the rounds of the engine's loops (each asks the abandon flag once) and stops the run
/// when they exceed `limit`.
private final class WorkCounter {
    let limit: Int
    private(set) var rounds = 0

    init(limit: Int) { self.limit = limit }

    func round() -> Bool {
        rounds += 1
        require(rounds <= limit, "more than \(limit) rounds of the engine's loops")
        return false
    }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTLSRecords(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let mode = bytes.first else { return 0 }
    let script = events(bytes.dropFirst())
    let server = ScriptedServer(script)
    let counter = WorkCounter(limit: 64 + 8 * bytes.count)
    let configuration =
        mode & 1 == 1
        ? TLSClientConfiguration(
            minimumVersion: .tls13, applicationProtocols: ["ntske/1"], trustRoots: .caFile(caFile))
        : TLSClientConfiguration(
            minimumVersion: .tls12, applicationProtocols: [], trustRoots: .caFile(caFile))
    let name = mode & 2 == 2 ? "time.example" : "127.0.0.1"
    do {
        let connection = try TLSConnection.connect(
            over: server, serverName: name, configuration: configuration, timeout: .seconds(60),
            isAbandoned: { counter.round() })
        require(
            false,
            "the handshake finished against bytes nobody signed (\(connection.protocolVersion), "
                + "ALPN \(connection.negotiatedProtocol ?? "none"))")
    } catch {
        _ = error.description
        require(
            error.code != .timedOut && error.code != .abandoned && error.code != .configuration,
            "the handshake failed with \(error)")
    }
    require(server.isClosed, "the transport was left open")
    require(server.sent <= 4096 + bytes.count, "the client sent \(server.sent) bytes for \(bytes.count)")
    require(server.receives <= script.count + 1, "\(server.receives) receives for \(script.count) events")
    return 0
}
