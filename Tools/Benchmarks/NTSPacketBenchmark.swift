import Foundation
import NTS
import NTSClient
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// `netclock-bench nts-packet`: the client's own work on one NTS packet, with no socket, server or
/// kernel in the figure: building and sealing a request (`NTSPacketProtection.protect`, on an
/// association kept with eight cookies of 104 bytes, chronyd's size) and checking a reply
/// (`verify(reply:)`: the layout, the Unique Identifier, AES-SIV, the new cookie kept); beside
/// them, the same AES-SIV alone on the same bytes (the cryptography's floor) and what a plain
/// exchange does there (a header encoded, a reply validated). Bursts of four requests on one
/// protection, as a query makes them; each operation timed on the monotonic clock, less the cost
/// of the clock read itself; nine interleaved rounds of 20,000 bursts, medians. The replies are
/// made between the timed calls by a server-side AES-SIV key.
func runNTSPacketBenchmark() throws {
    let clientToServer = (0..<32).map { UInt8($0) }
    let serverToClient = (0..<32).map { UInt8($0 &+ 100) }
    let cookie = (0..<104).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let saved = NTSAssociation.Saved(
        keyExchangeHost: "127.0.0.1", keyExchangePort: 4460, ntpHost: "127.0.0.1", ntpPort: 123,
        aead: NTSKEConstants.aesSIVCMAC256, clientToServer: clientToServer, serverToClient: serverToClient,
        cookies: Array(repeating: cookie, count: NTSAssociation.cookieTarget))
    guard let association = NTSAssociation(restoring: saved) else {
        throw NTSBenchmarkFailure("the benchmark's association does not restore")
    }
    let server = try AESSIVKey(serverToClient)
    // The client's own keys, for AES-SIV alone: sealing as its requests, opening as its replies.
    let clientKey = try AESSIVKey(clientToServer)
    let openingKey = try AESSIVKey(serverToClient)
    let timer = PacketTimer()
    var series: [String: [Double]] = [:]
    var nonce: UInt64 = 0x1234_5678
    for _ in 0..<9 {
        var totals: [String: Double] = [:]
        let bursts = 20_000
        for _ in 0..<bursts {
            var protection = NTSPacketProtection(association: association)
            for _ in 0..<4 {
                nonce &+= 0x9E37_79B9_7F4A_7C15
                let header = NTPPacket.clientRequest(nonce: NTPTimestamp(rawValue: nonce))
                var request: [UInt8] = []
                totals["NTS request", default: 0] += try timer.time {
                    request = try protection.protect(header)
                }
                totals["plain request", default: 0] += timer.time { _ = header.encoded() }
                let layout = try NTSPacket.Layout(parsing: request)
                totals["AES-SIV seal alone", default: 0] += try timer.time {
                    try seal(clientKey, request, layout)
                }
                let (reply, plainReply) = try replies(to: header, request, layout, server, cookie: cookie)
                totals["NTS reply", default: 0] += try timer.time { try protection.verify(reply: reply) }
                let replyLayout = try NTSPacket.Layout(parsing: reply)
                totals["AES-SIV open alone", default: 0] += try timer.time {
                    _ = try openingKey.open(
                        reply[..<replyLayout.authenticatorOffset], nonce: reply[replyLayout.nonce],
                        ciphertext: reply[replyLayout.ciphertext])
                }
                totals["plain reply", default: 0] += try timer.time {
                    _ = try ReplyValidator.validate(
                        plainReply, match: { _ in .current }, policy: ValidationPolicy())
                }
            }
        }
        for (name, total) in totals { series[name, default: []].append(total / Double(bursts * 4)) }
    }
    let median = { (name: String) in Stats.median(series[name] ?? []) }
    var table = Table(header: ["per packet", "median (ns)", "ratio", "baseline"])
    let rows: [(String, String)] = [
        ("plain request", "plain request"), ("NTS request", "plain request"),
        ("AES-SIV seal alone", "NTS request"), ("plain reply", "plain reply"), ("NTS reply", "plain reply"),
        ("AES-SIV open alone", "NTS reply"),
    ]
    for (name, baseline) in rows {
        table.add([
            name, String(format: "%.0f", median(name) * 1e9),
            String(format: "×%.2f", median(name) / median(baseline)), baseline == name ? "itself" : baseline,
        ])
    }
    print("nts-packet: the client's work on one NTS packet (no socket), vs a plain one and vs AES-SIV alone")
    print("(bursts of 4 on one protection, 104-byte cookies; 9 interleaved rounds of 20,000 bursts;")
    print(
        "each call timed on the monotonic clock less \(String(format: "%.0f", timer.overhead * 1e9)) ns for the read)"
    )
    print(table.render())
}

/// What the NTS request's AES-SIV costs alone: the same associated data and nonce sealed again.
private func seal(_ key: AESSIVKey, _ request: [UInt8], _ layout: NTSPacket.Layout) throws {
    _ = try key.seal(request[..<layout.authenticatorOffset], nonce: request[layout.nonce], plaintext: [])
}

/// A reply to `request`, sealed by the server's key with one new cookie, and the plain reply to
/// the same header.
private func replies(
    to header: NTPPacket, _ request: [UInt8], _ layout: NTSPacket.Layout, _ server: AESSIVKey, cookie: [UInt8]
) throws -> (nts: [UInt8], plain: [UInt8]) {
    var reply = NTPPacket(
        mode: .server, transmitTimestamp: NTPTimestamp(rawValue: header.transmitTimestamp.rawValue &+ 9))
    reply.originTimestamp = header.transmitTimestamp
    reply.receiveTimestamp = NTPTimestamp(rawValue: header.transmitTimestamp.rawValue &+ 5)
    reply.referenceTimestamp = NTPTimestamp(rawValue: header.transmitTimestamp.rawValue &- 1_000)
    reply.stratum = NTPPacket.Stratum(rawValue: 2)
    let associatedData = NTSPacket.encode(
        header: reply,
        fields: [
            try NTPExtensionField(type: .uniqueIdentifier, body: Array(request[layout.uniqueIdentifier]))
        ])
    let nonce = NTSRandom.bytes(16)
    let sealed = try server.seal(
        associatedData: [associatedData, nonce], plaintext: try NTSEncryptedFields.encode(cookies: [cookie]))
    let authenticator = try NTSAuthenticator(nonce: nonce, ciphertext: sealed).field()
    return (associatedData + authenticator.encoded(), reply.encoded())
}

/// Times single calls on the monotonic clock (vDSO), less the cost of the reading itself.
private struct PacketTimer {
    /// The median of back-to-back readings' differences: what one timing adds.
    let overhead: Double

    init() {
        var gaps: [Double] = []
        for _ in 0..<100_001 {
            let start = Self.now()
            gaps.append(Self.now() - start)
        }
        overhead = Stats.median(gaps)
    }

    /// Seconds `body` took, less the reading's cost.
    func time(_ body: () throws -> Void) rethrows -> Double {
        let start = Self.now()
        try body()
        return Self.now() - start - overhead
    }

    static func now() -> Double {
        var time = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
}
