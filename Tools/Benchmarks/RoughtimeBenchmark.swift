import Foundation
import LoopbackServers
import NetClockPlatform
import NetClockTLS
import Roughtime
import SNTP
import TimeValues

/// A failure of `netclock-bench roughtime` that makes its figures meaningless.
struct RoughtimeBenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `netclock-bench roughtime`, in one run:
///
/// 1. The CPU cost of verifying one reply (RFC 10049; one alone and one from a batch of 64, whose
///    path holds six hashes), against baselines measured in the same rounds: one SHA-512 of the
///    1036-byte request, one Ed25519 verification, one NTP packet decode. A reply costs two
///    signature verifications and a few hashes, so its ratio to one Ed25519 verification is the
///    figure that matters.
/// 2. One query's wall time on loopback against the same in-process fake server: our client (one
///    server, one pass: resolve, socket, request, verify), `roughly`'s `send_request` timed inside
///    one Python process, and the `roughly query` command as a user runs it (interpreter start
///    included). The roughly rows need its venv (`NETCLOCK_ROUGHLY_VENV` or `.build/roughly-venv`)
///    and are left out without it.
func runRoughtimeBenchmark() throws {
    try runRoughtimeVerificationBenchmark()
    print()
    try runRoughtimeQueryBenchmark()
}

/// Nanoseconds per call of `body`, `count` calls timed together.
private func nanoseconds(_ count: Int, _ body: () throws -> Void) rethrows -> Double {
    let clock = BootTimeClock()
    let start = clock.now()
    for _ in 0..<count { try body() }
    return (clock.now() - start).secondsDouble * 1e9 / Double(count)
}

private func runRoughtimeVerificationBenchmark() throws {
    let configuration = try FakeRoughtimeServer.Configuration()
    var responder = try FakeRoughtimeServer.Responder(seed: 1)
    var generator = SplitMix64(seed: 2)
    let requests = try (0..<64).map { _ in
        try RoughtimeRequest(
            nonce: SystemRoughtimeRandom.bytes(32, using: &generator), versions: [.rfc],
            publicKey: configuration.publicKey)
    }
    let now = SystemWallClock().now()
    guard
        let alone = responder.answer([requests[0].bytes], at: now, configuration: configuration).first?.reply,
        let batched = responder.answer(requests.map(\.bytes), at: now, configuration: configuration).last?
            .reply
    else {
        throw RoughtimeBenchmarkFailure("the fake server did not answer")
    }
    let batchedRequest = requests[63]
    let batchedResponse = try RoughtimeResponse(
        verifying: batched, for: batchedRequest, publicKey: configuration.publicKey)
    guard batchedResponse.pathLength == 6 else {
        throw RoughtimeBenchmarkFailure("a batch of 64 gave a path of \(batchedResponse.pathLength) hashes")
    }
    let key = try Ed25519.PrivateKey.generate()
    let message = Array("RoughTime v1 response signature\0".utf8) + [UInt8](repeating: 7, count: 100)
    let signature = try key.signature(of: message)
    let ntpBytes = NTPPacket.clientRequest(nonce: NTPTimestamp(rawValue: 0x1234_5678_9ABC_DEF0)).encoded()

    var verifyAlone: [Double] = []
    var verifyBatched: [Double] = []
    var sha512: [Double] = []
    var ed25519: [Double] = []
    var ntpDecode: [Double] = []
    let perRound = 200
    for round in 0..<16 {
        let a = try nanoseconds(perRound) {
            _ = try RoughtimeResponse(verifying: alone, for: requests[0], publicKey: configuration.publicKey)
        }
        let b = try nanoseconds(perRound) {
            _ = try RoughtimeResponse(
                verifying: batched, for: batchedRequest, publicKey: configuration.publicKey)
        }
        let c = try nanoseconds(perRound) { _ = try Digest.hash(.sha512, requests[0].bytes) }
        var valid = true
        let d = nanoseconds(perRound) {
            valid = valid && Ed25519.isValidSignature(signature, of: message, publicKey: key.publicKey)
        }
        let e = try nanoseconds(perRound * 10) { _ = try NTPPacket(decoding: ntpBytes) }
        guard valid else { throw RoughtimeBenchmarkFailure("the baseline signature did not verify") }
        if round == 0 { continue }  // warm-up
        verifyAlone.append(a)
        verifyBatched.append(b)
        sha512.append(c)
        ed25519.append(d)
        ntpDecode.append(e)
    }
    let baseline = Stats.median(ed25519)
    var table = Table(header: ["operation", "median (µs)", "p90 (µs)", "÷ Ed25519 verify"])
    for (name, values) in [
        ("verify one RFC reply (path 0)", verifyAlone),
        ("verify one RFC reply (batch of 64, path 6)", verifyBatched),
        ("Ed25519 verify (100-byte message)", ed25519), ("SHA-512 of a 1036-byte request", sha512),
        ("NTP packet decode (48 bytes)", ntpDecode),
    ] {
        table.add([
            name, String(format: "%.2f", Stats.median(values) / 1000),
            String(format: "%.2f", Stats.quantile(values, 0.9) / 1000),
            String(format: "%.2f", Stats.median(values) / baseline),
        ])
    }
    print(
        "roughtime verification: CPU per reply on this machine, 15 rounds of \(perRound) interleaved with the"
    )
    print(
        "baselines (release build). A reply = framing and three nested messages, the Merkle proof, two Ed25519"
    )
    print("verifications (delegation, response).")
    print(table.render())
}

/// Wall time of one query, our client and roughly's, against one in-process fake server.
private func runRoughtimeQueryBenchmark() throws {
    let server = try FakeRoughtimeServer(configuration: try FakeRoughtimeServer.Configuration())
    defer { server.stop() }
    let target = RoughtimeServer(
        name: "fake", address: server.hostAndPort, publicKey: server.publicKey, versions: [.rfc])
    var options = RoughtimeClient.Options()
    options.passes = 1
    options.timing = RoughtimeExchange.Timing(timeout: .seconds(2), firstRetransmission: nil)
    let client = RoughtimeClient()
    let clock = BootTimeClock()
    var ours: [Double] = []
    for index in 0..<220 {
        let start = clock.now()
        let result = client.query([target], options: options)
        let elapsed = (clock.now() - start).secondsDouble
        guard let agreement = try? result.agreedTime(), agreement.offsets.contains(.zero) else {
            throw RoughtimeBenchmarkFailure("a query failed or missed the truth: \(result)")
        }
        if index >= 20 { ours.append(elapsed) }
    }
    var table = Table(header: ["client", "runs", "median (ms)", "p90 (ms)", "÷ ours"])
    let baseline = Stats.median(ours)
    table.add([
        "netclock RoughtimeClient (1 server, 1 pass)", "\(ours.count)", ms(baseline),
        ms(Stats.quantile(ours, 0.9)), "1.00",
    ])
    let venv = roughlyVenv()
    if let venv {
        let key = Data(server.publicKey).base64EncodedString()
        let inProcess = try roughlyInProcess(
            venv: venv, host: server.host, port: server.port, key: key, runs: 200)
        table.add([
            "roughly send_request (in one Python process)", "\(inProcess.count)", ms(Stats.median(inProcess)),
            ms(Stats.quantile(inProcess, 0.9)), String(format: "%.2f", Stats.median(inProcess) / baseline),
        ])
        var command: [Double] = []
        for _ in 0..<12 {
            let start = clock.now()
            let output = try runProcess(
                venv + "/bin/roughly", ["query", "--terse", server.host, "\(server.port)", key])
            guard Int64(output.trimmingCharacters(in: .whitespacesAndNewlines)) != nil else {
                throw RoughtimeBenchmarkFailure("roughly query printed: \(output)")
            }
            command.append((clock.now() - start).secondsDouble)
        }
        command.removeFirst(2)
        table.add([
            "roughly query (the command, Python start included)", "\(command.count)",
            ms(Stats.median(command)),
            ms(Stats.quantile(command, 0.9)), String(format: "%.1f", Stats.median(command) / baseline),
        ])
    }
    print("roughtime query: wall time of one verified query on loopback against the same in-process fake")
    print("server (RFC 10049, no batching window), 200 runs after 20 of warm-up")
    print(table.render())
    if venv == nil {
        print("(roughly rows left out: no venv at NETCLOCK_ROUGHLY_VENV or .build/roughly-venv)")
    }
    print("server: \(server.statistics.replies) replies, \(server.statistics.dropped) dropped")
}

/// The venv holding `roughly`, as the tests find it.
private func roughlyVenv() -> String? {
    let candidates = [
        ProcessInfo.processInfo.environment["NETCLOCK_ROUGHLY_VENV"],
        FileManager.default.currentDirectoryPath + "/.build/roughly-venv",
    ]
    return candidates.compactMap { $0 }.first {
        FileManager.default.isExecutableFile(atPath: $0 + "/bin/roughly")
    }
}

/// Times `roughly.client.send_request` (verification included) `runs` times in one Python
/// process, after 20 of warm-up; seconds each.
private func roughlyInProcess(venv: String, host: String, port: UInt16, key: String, runs: Int) throws
    -> [Double]
{
    let script = """
        import asyncio, base64, sys, time
        from roughly.client import send_request
        async def main():
            key = base64.b64decode(sys.argv[3])
            times = []
            for i in range(\(runs) + 20):
                start = time.perf_counter()
                await send_request(sys.argv[1], int(sys.argv[2]), key, versions=(1,))
                if i >= 20:
                    times.append(time.perf_counter() - start)
            print(" ".join(repr(t) for t in times))
        asyncio.run(main())
        """
    let output = try runProcess(venv + "/bin/python", ["-c", script, host, "\(port)", key])
    let times = output.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
    guard times.count == runs else {
        throw RoughtimeBenchmarkFailure("roughly in-process timing printed: \(output)")
    }
    return times
}

/// Runs a program to its end and returns its standard output.
private func runProcess(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
