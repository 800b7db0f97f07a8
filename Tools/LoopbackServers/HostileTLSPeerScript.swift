/// What a ``HostileTLSPeer`` does to each connection: a fault, at one stage of the TLS session.
package struct HostileTLSPeerScript: Hashable, Sendable, CustomStringConvertible {
    /// Where in the session the fault replaces the honest bytes.
    package enum Stage: String, Hashable, Sendable, CaseIterable {
        /// Instead of the ServerHello: the peer reads the ClientHello and answers with the fault,
        /// in the clear, as a server that speaks no TLS (or an attacker on the path) would.
        case insteadOfServerHello = "instead of the ServerHello"
        /// After the server's first record (its ServerHello) went out honestly: the rest of the
        /// server's flight is replaced, in the middle of the handshake.
        case afterServerHello = "after the ServerHello"
        /// After a complete, valid handshake (the test CA's certificate) and the client's request:
        /// the response is replaced.
        case afterHandshake = "after the handshake"
    }

    /// The misbehaviour.
    package enum Fault: Hashable, Sendable, CustomStringConvertible {
        /// One close_notify alert record, in the clear (after the handshake: the genuine,
        /// encrypted one), and the connection held open.
        case closeNotify
        /// Two close_notify alert records in the clear (after the handshake: the genuine one, then
        /// one in the clear), and the connection held open: what once made the client spin.
        case twoCloseNotifies
        /// One fatal `handshake_failure` alert record in the clear, and the connection held open.
        case fatalAlert
        /// An HTTP/1.1 error response in the clear where TLS records were due, held open.
        case garbage
        /// A record header announcing `length` bytes (0xFFFF, or 2^14 + 2049, past every limit),
        /// followed by that many bytes, held open.
        case absurdLength(UInt16)
        /// Zero bytes, 16 KiB at a time, until the client goes away.
        case endlessZeros
        /// Nothing at all, the connection held open, until the client goes away.
        case stall
        /// The TCP stream ends (FIN) between records: right after the ClientHello, after the
        /// ServerHello record, or after the first record of the response.
        case close
        /// Every byte from this stage on in its own TCP segment, `pause` apart: the honest
        /// handshake and response, far too slowly (the handshake's or the response's records
        /// never complete within a client's deadline at 20 ms a byte).
        case trickle(pause: Duration)

        /// The fault's name, e.g. `two close_notify`.
        package var description: String {
            switch self {
            case .closeNotify: return "one close_notify"
            case .twoCloseNotifies: return "two close_notify"
            case .fatalAlert: return "a fatal alert"
            case .garbage: return "garbage"
            case .absurdLength(let length): return "a record of \(length) bytes"
            case .endlessZeros: return "endless zeros"
            case .stall: return "a stall"
            case .close: return "a close between records"
            case .trickle(let pause): return "a trickle (one byte every \(pause))"
            }
        }

        /// One of each kind, with the lengths and pause the tests use.
        package static let all: [Fault] = [
            .closeNotify, .twoCloseNotifies, .fatalAlert, .garbage, .absurdLength(0xFFFF),
            .absurdLength(16_384 + 2_049), .endlessZeros, .stall, .close, .trickle(pause: .milliseconds(20)),
        ]
    }

    /// The application the peer pretends to serve, for the bytes after the handshake.
    package enum Application: String, Hashable, Sendable {
        /// HTTP/1.1 over TLS (`https://` time): no ALPN; the request ends with an empty line.
        case http
        /// NTS-KE (RFC 8915 §4): ALPN `ntske/1`, TLS 1.3; the request ends with End of Message.
        case ntske
    }

    /// Where the fault happens.
    package var stage: Stage
    /// What it is.
    package var fault: Fault

    /// `fault` at `stage`.
    package init(_ fault: Fault, at stage: Stage) {
        self.stage = stage
        self.fault = fault
    }

    /// Every fault at every stage.
    package static let matrix: [HostileTLSPeerScript] = Stage.allCases.flatMap { stage in
        Fault.all.map { HostileTLSPeerScript($0, at: stage) }
    }

    /// The scripts that hold a connection open as long as the client stays: a stall and a trickle
    /// (a byte every 20 ms) at each stage.
    package static let holding: [HostileTLSPeerScript] = Stage.allCases.flatMap { stage in
        [
            HostileTLSPeerScript(.stall, at: stage),
            HostileTLSPeerScript(.trickle(pause: .milliseconds(20)), at: stage),
        ]
    }

    /// E.g. `two close_notify instead of the ServerHello`.
    package var description: String { "\(fault) \(stage.rawValue)" }
}

/// What a client may spend against a ``HostileTLSPeer``, as the tests of both protocols
/// (`https://` time and NTS-KE) assert it.
package enum HostileTLSPeerBudget {
    /// The request or key-exchange timeout the client is given: the stalls and trickles end then.
    /// A timeout only has to happen, not to be long: at 20 ms a byte a trickle completes no
    /// record in it, and a thread left spinning still shows several times ``cpuLimit``.
    package static let timeout = Duration.milliseconds(500)
    /// Wake-ups on a loaded 2-core machine, beyond the timeout.
    package static let slack = Duration.milliseconds(500)
    /// How long after the call the CPU is still measured: five poll slices, in which a thread left
    /// spinning would burn about 250 ms more.
    package static let settle = Duration.milliseconds(250)
    /// The CPU a case may use, both sides of the loopback together, the settle period included.
    /// Measured here: 3–10 ms for the cases that fail at once (one handshake costs each side about
    /// 1–3 ms of ECDHE and ECDSA), about 22 ms a second for a trickle (each byte wakes both sides,
    /// 50 times a second; ~11 ms in the 0.5 s timeout). A spinning thread burns about 1 s per
    /// second, so in the 0.75 s a timed-out case is measured it would show ~0.75 s, and ~0.25 s in
    /// the settle period alone after a case that fails at once: 200 ms is 8× the honest cost and
    /// below either.
    package static let cpuLimit = Duration.milliseconds(200)
    /// Scheduling on a loaded 2-core machine, beyond the one poll slice a pool thread may take to
    /// notice it was abandoned.
    package static let wakeSlack = Duration.milliseconds(200)
}

/// Raw record bytes a hostile peer sends in the clear.
enum HostileTLSRecords {
    /// A close_notify alert (level warning, description 0), TLS 1.2 record version.
    static let closeNotify: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x01, 0x00]
    /// A fatal handshake_failure alert (level fatal, description 40).
    static let fatalAlert: [UInt8] = [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]
    /// What a plain HTTP server answers to a ClientHello.
    static let garbage = Array(
        "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)

    /// A handshake record (content type 22) header announcing `length` bytes, then that many.
    static func absurd(length: UInt16, contentType: UInt8) -> [UInt8] {
        [contentType, 0x03, 0x03, UInt8(length >> 8), UInt8(length & 0xFF)]
            + [UInt8](repeating: 0x41, count: Int(length))
    }

    /// Where each complete record of `stream` ends (its header's length), up to the last whole one.
    static func recordEnds(in stream: [UInt8]) -> [Int] {
        var ends: [Int] = []
        var offset = 0
        while offset + 5 <= stream.count {
            let end = offset + 5 + (Int(stream[offset + 3]) << 8 | Int(stream[offset + 4]))
            guard end <= stream.count else { break }
            ends.append(end)
            offset = end
        }
        return ends
    }
}
