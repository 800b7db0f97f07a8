import NTS
import NetClockPlatform
import NetClockTLS
import NetClockTestSupport
import SNTP
import TimeValues

/// One connection of a ``HostileTLSPeer``: the script played against one client, on the
/// connection's own thread. Every wait ends when the client goes away, when the peer stops, or
/// after ``limit``.
struct HostileTLSPeerSession {
    /// The longest a session holds a connection open.
    static let limit = Duration.seconds(30)
    /// The most request bytes read after the handshake.
    static let requestLimit = 16 * 1024

    let raw: AcceptedTCPConnection
    let stop: WakeChannel
    let script: HostileTLSPeerScript
    let application: HostileTLSPeerScript.Application
    let tls: TLSServerConfiguration
    /// Called once the handshake has finished honestly.
    let handshakeFinished: @Sendable () -> Void

    /// Plays the script, then closes the socket.
    func serve() {
        defer { raw.close() }
        switch (script.stage, script.fault) {
        case (.insteadOfServerHello, .trickle(let pause)):
            serveHonestly(mode: .trickle(pause: pause))
        case (.insteadOfServerHello, let fault):
            guard readClientHello() else { return }
            inflict(fault, contentType: 22)
        case (.afterServerHello, let fault):
            serveHonestly(mode: .faultAfter(records: 1, fault: fault))
        case (.afterHandshake, _):
            serveHonestly(mode: .honest)
        }
    }

    /// Runs the server's handshake over a transport in `mode`; after the handshake, reads the
    /// request and answers it as the script says.
    private func serveHonestly(mode: HostileTLSPeerTransport.Mode) {
        let transport = HostileTLSPeerTransport(raw, stop: stop, mode: mode) { fault in
            inflict(fault, contentType: 22)
        }
        guard
            let connection = try? TLSConnection.accept(
                over: transport, configuration: tls, timeout: Self.limit)
        else { return }
        handshakeFinished()
        guard readRequest(connection) else { return }
        let response = HostileTLSPeerResponse.bytes(for: application)
        switch (script.stage, script.fault) {
        case (.afterHandshake, .closeNotify):
            connection.close(timeout: .seconds(1))
            hold()
        case (.afterHandshake, .twoCloseNotifies):
            connection.close(timeout: .seconds(1))
            inflict(.closeNotify, contentType: 21)
        case (.afterHandshake, .close):
            // One honest record of the response, then the end of the stream without close_notify.
            try? connection.write(Array(response.prefix(response.count / 2)), timeout: .seconds(1))
        case (.afterHandshake, .trickle(let pause)):
            transport.mode = .trickle(pause: pause)
            try? connection.write(response, timeout: Self.limit)
            hold()
        case (.afterHandshake, let fault):
            inflict(fault, contentType: 23)
        default:
            // A trickled handshake: the honest response, as slowly.
            try? connection.write(response, timeout: Self.limit)
            hold()
        }
    }

    /// Waits for the client's first bytes (its ClientHello) and reads them; false when none came.
    private func readClientHello() -> Bool {
        switch raw.waitReadable(orWakeFrom: stop, milliseconds: Int32(Self.limit / .milliseconds(1))) {
        case .readable: return raw.receive(maximum: 64 * 1024) != nil
        case .woken, .timedOut: return false
        }
    }

    /// Reads the request after the handshake, up to its end (an empty line, or NTS-KE's End of
    /// Message); false when the client went away first.
    private func readRequest(_ connection: TLSConnection) -> Bool {
        let end: [UInt8] = application == .http ? [13, 10, 13, 10] : [0x80, 0, 0, 0]
        var request: [UInt8] = []
        while request.count < Self.requestLimit {
            guard case .bytes(let bytes) = try? connection.read(maximum: 4096, timeout: Self.limit) else {
                return false
            }
            request += bytes
            if request.count >= end.count && Array(request.suffix(end.count)) == end { return true }
        }
        return false
    }

    /// Carries out `fault` on the raw socket (records of `contentType` where it sends one), and
    /// returns once the client has gone (or at once, for a close).
    private func inflict(_ fault: HostileTLSPeerScript.Fault, contentType: UInt8) {
        switch fault {
        case .closeNotify:
            send(HostileTLSRecords.closeNotify)
        case .twoCloseNotifies:
            send(HostileTLSRecords.closeNotify + HostileTLSRecords.closeNotify)
        case .fatalAlert:
            send(HostileTLSRecords.fatalAlert)
        case .garbage:
            send(HostileTLSRecords.garbage)
        case .absurdLength(let length):
            send(HostileTLSRecords.absurd(length: length, contentType: contentType))
        case .endlessZeros:
            let zeros = [UInt8](repeating: 0, count: 16 * 1024)
            let end = Syscalls.clockTime(.bootTime) + Self.limit
            while Syscalls.clockTime(.bootTime) < end, raw.sendAll(zeros[...]) {}
            return
        case .close:
            return
        case .stall, .trickle:
            break
        }
        hold()
    }

    /// Sends `bytes` in one write, ignoring a client that has gone.
    private func send(_ bytes: [UInt8]) {
        _ = raw.sendAll(bytes[...])
    }

    /// Reads and drops whatever the client sends until it closes the connection, the peer stops,
    /// or ``limit`` passes.
    private func hold() {
        let end = Syscalls.clockTime(.bootTime) + Self.limit
        while Syscalls.clockTime(.bootTime) < end {
            switch raw.waitReadable(orWakeFrom: stop, milliseconds: 100) {
            case .woken: return
            case .timedOut: continue
            case .readable: guard raw.receive(maximum: 4096) != nil else { return }
            }
        }
    }
}
