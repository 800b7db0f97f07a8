import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import WallClockReference

/// Stepping and smearing fake servers together on loopback, `lead` seconds before their month end
/// (their clocks offset to put it there), with a leap second announced by the stepping ones (LI)
/// and smeared by the smearing one (24 h linear, noon to noon, LI 0, as time.google.com does).
/// Near the midnight the smearing server is about half a second from the stepping ones.
///
/// The truth is the stepping servers' clock: their offset, after the leap less the sign (an
/// inserted second steps them back). Declared with `--smearing-server`, the smearing server is
/// mapped onto stepping time and agrees (a survivor or selected); its correction is the fraction
/// of the smear done (before the midnight) or left (after it), which changes 11.6 µs a second: the
/// syncs run within 30 s of the midnight, so it is within 0.5 ms of ±0.5 s. Given as a plain server
/// beside two stepping ones it is outvoted and named a falseticker; a stepping server 250 ms wrong
/// beside a stepping one and the declared smearing one is named the same way. After the midnight
/// the leap is known from the anchor kept in the state file, or from a valid table; with neither,
/// the smearing server is widened by the half second instead. Loopback bounds are well under a
/// millisecond; 20 ms allows for a loaded machine, while a smear taken for stepping time is 0.5 s
/// off.
///
/// Real time is waited for once: the anchor kept before the midnight must meet the servers after
/// it, as the same monotonic clock has run from one to the other. The syncs that need no anchor
/// from before (a fresh one, after the leap) ask a second set of servers already past their
/// midnight, at the same time as the syncs before it; every sync of a phase runs at once, and the
/// LI scenes (``LeapAnnouncedScene``) wait for their own midnight at the same time.
@Suite("Leap seconds: LI, smearing and stepping servers on loopback", .serialized, .wallClockReference)
struct LeapSmearingServerCLITests {
    /// From the scene's start to the first servers' midnight: room for the syncs before it, all at
    /// once, on a loaded machine, each clear of the deleted second's step 1 s before the midnight (a
    /// burst across it is refused as inconsistent). They must end half a second before that step
    /// (checked); beside the LI scenes on this 2-core machine, shared with other builds (load about 7),
    /// with or without a core kept busy, they took 0.6–0.9 s.
    static let lead: Duration = .seconds(3)
    /// Past their midnight of the second servers at the scene's start, and of the first ones when
    /// the syncs after it begin: the stepping servers have stepped (an inserted second repeats
    /// 23:59:59 for a second after the midnight, with LI 0 already) and read the next day.
    static let past: Duration = .milliseconds(1500)

    /// A server `lead` before its month end (negative: after it) announcing (stepping) or smearing
    /// `sign`.
    static func server(
        sign: Int64, smear: Bool, midnight: UnixTime, now: UnixTime, lead: Duration = lead,
        wrongBy: Duration = .zero
    ) throws -> FakeNTPServer {
        var configuration = FakeNTPServer.Configuration(offset: (midnight - lead) - now + wrongBy)
        configuration.leap = sign > 0 ? .insertSecond : .deleteSecond
        configuration.leapMidnight = midnight
        configuration.smear = smear
        return try FakeNTPServer(configuration: configuration)
    }

    /// One sync's figures.
    struct Result {
        var offset: Double
        var bound: Double
        /// Each server's entry, by port.
        var sources: [UInt16: [String: Any]]
    }

    static func sync(_ arguments: [String], state: String, table: String = "none") async throws -> Result {
        let output = try await CLIRunner.run(
            ["sync"] + arguments + ["--interval", "0", "--state", state, "--leap-seconds", table, "--json"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        var sources: [UInt16: [String: Any]] = [:]
        for source in json["servers"] as? [[String: Any]] ?? [] {
            if let host = source["host"] as? String,
                let port = host.split(separator: ":").last.flatMap({ UInt16($0) })
            {
                sources[port] = source
            }
        }
        return Result(
            offset: try #require(json["offset"] as? Double),
            bound: try #require(json["error_bound"] as? Double),
            sources: sources)
    }

    static func address(_ server: FakeNTPServer) -> String { "127.0.0.1:\(server.port)" }

    /// A valid IERS/NIST leap-second table with a leap of `sign` at `midnight`, expiring 200 days
    /// after it: TAI − UTC 37 s from 2017, then 37 + sign; its `#h` the SHA-1 of the `#$` and `#@`
    /// values and the data lines' fields.
    static func table(sign: Int64, midnight: UnixTime) -> String {
        let ntp = midnight.seconds + 2_208_988_800
        let updated = String(ntp - 100 * 86_400)
        let expires = String(ntp + 200 * 86_400)
        let lines = [("3692217600", "37"), (String(ntp), String(37 + sign))]
        let digest = SHA1.digest(Array((updated + expires + lines.map { $0.0 + $0.1 }.joined()).utf8))
        let words = (0..<5).map { word in
            String(digest[(4 * word)..<(4 * word + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, radix: 16)
        }
        return
            (["#$\t" + updated, "#@\t" + expires] + lines.map { "\($0.0)\t\($0.1)" }
            + ["#h\t" + words.joined(separator: " ")]).joined(separator: "\n") + "\n"
    }

    /// Both signs and the LI scenes at once: each scene has its own servers and state files, and
    /// most of its time is the wait for its servers' midnight.
    @Test("declared smearing servers agree, an undeclared one is a falseticker; LI leaps and split votes")
    func smearingAndStepping() async throws {
        async let insert: Void = Self.scene(sign: 1)
        async let delete: Void = Self.scene(sign: -1)
        async let announced: Void = LeapAnnouncedScene.run()
        try await insert
        try await delete
        try await announced
    }

    /// The scene for an inserted (`sign` 1) or a deleted (−1) second.
    static func scene(sign: Int64) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-smear-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func state(_ name: String) -> String { directory.appendingPathComponent("\(name).json").path }
        let wall = SystemWallClock().now()
        let midnight = FakeNTPServer.monthEnd(after: wall)
        let a = try Self.server(sign: sign, smear: false, midnight: midnight, now: wall)
        let b = try Self.server(sign: sign, smear: false, midnight: midnight, now: wall)
        let s = try Self.server(sign: sign, smear: true, midnight: midnight, now: wall)
        // A stepping server 250 ms wrong: named whoever it disagrees with.
        let w = try Self.server(
            sign: sign, smear: false, midnight: midnight, now: wall, wrongBy: .milliseconds(250))
        // The second set, already `past` after the midnight: the same servers' clocks `lead + past`
        // later.
        let pa = try Self.server(
            sign: sign, smear: false, midnight: midnight, now: wall, lead: .zero - Self.past)
        let pb = try Self.server(
            sign: sign, smear: false, midnight: midnight, now: wall, lead: .zero - Self.past)
        let ps = try Self.server(
            sign: sign, smear: true, midnight: midnight, now: wall, lead: .zero - Self.past)
        defer { [a, b, s, w, pa, pb, ps].forEach { $0.stop() } }
        let offset = ((midnight - Self.lead) - wall).secondsDouble
        let smearing = ["--smearing-server", Self.address(s)]
        let leap = sign > 0 ? "insert" : "delete"
        func report(_ name: String, _ result: Result, truth: Double, smearing: FakeNTPServer) {
            let name = "\(leap), \(name)"
            let error = result.offset - truth
            let mapped = result.sources[smearing.port]
            print(
                "smear figures sign \(sign) \(name): error \(String(format: "%+.6f", error)) s,"
                    + " bound \(String(format: "%.6f", result.bound)) s, smearing server"
                    + " \(mapped?["status"] as? String ?? "-") correction"
                    + " \(String(format: "%+.6f", mapped?["smear_correction"] as? Double ?? .nan)) s widening"
                    + " \(String(format: "%.6f", mapped?["smear_widening"] as? Double ?? .nan)) s")
            #expect(abs(error) <= result.bound, "\(name): \(error) outside ±\(result.bound)")
            #expect(result.bound < 0.02, "\(name)")
        }
        func agrees(_ result: Result, _ name: String, correction: Double, smearing: FakeNTPServer) {
            let name = "\(leap), \(name)"
            let source = result.sources[smearing.port]
            let status = source?["status"] as? String
            #expect(status == "survivor" || status == "selected", "\(name): \(status ?? "none")")
            #expect(source?["smearing"] as? Bool == true, "\(name)")
            let measured = source?["smear_correction"] as? Double ?? .nan
            #expect(abs(measured - correction) < 0.0005, "\(name): \(measured)")
        }
        // Before the midnight the smear is about half done: stepping − smeared = sign × ~0.5 s.
        let before = Double(sign) * 0.5
        // After it, on stepping time: the servers stepped back by the sign, the smear has half left.
        let truth = offset - Double(sign)
        let after = -Double(sign) * 0.5
        let table = directory.appendingPathComponent("leap-seconds.list").path
        try Self.table(sign: sign, midnight: midnight).write(toFile: table, atomically: true, encoding: .utf8)
        let declared = ["--smearing-server", Self.address(ps)]
        // Every sync before the midnight, and those after it that need no anchor from before, at once.
        async let oneRun = Self.sync([Self.address(a)] + smearing, state: state("one"))
        async let twoRun = Self.sync([Self.address(a), Self.address(b)] + smearing, state: state("two"))
        async let plainRun = Self.sync(
            [Self.address(a), Self.address(b), Self.address(s)], state: state("plain"))
        async let wrongRun = Self.sync([Self.address(a), Self.address(w)] + smearing, state: state("wrong"))
        // A fresh anchor, no table, LI 0 after the leap: unknown, widened by what the smear moved.
        async let unknownRun = Self.sync(
            [Self.address(pa), Self.address(pb)] + declared, state: state("fresh"))
        // A fresh anchor again, but a valid table with the leap: it decides, the mapping is exact.
        async let tabledRun = Self.sync([Self.address(pa)] + declared, state: state("tabled"), table: table)
        let one = try await oneRun
        let two = try await twoRun
        let plain = try await plainRun
        let wrong = try await wrongRun
        let unknown = try await unknownRun
        let tabled = try await tabledRun
        print(
            "smear figures sign \(sign): the syncs before took \((SystemWallClock().now() - wall).secondsDouble) s"
        )
        // Half a second before the deleted second's step, 1 s before the midnight.
        #expect(
            SystemWallClock().now() < wall + Self.lead - .milliseconds(1500),
            "\(leap): the syncs before took too long")

        report("one stepping + smearing, before", one, truth: offset, smearing: s)
        agrees(one, "one stepping before", correction: before, smearing: s)
        report("two stepping + smearing, before", two, truth: offset, smearing: s)
        agrees(two, "two stepping before", correction: before, smearing: s)
        report("two stepping + undeclared smearing, before", plain, truth: offset, smearing: s)
        #expect(plain.sources[s.port]?["status"] as? String == "falseticker", "\(leap)")
        #expect(plain.sources[s.port]?["smearing"] == nil, "\(leap)")
        report("stepping + wrong stepping + smearing, before", wrong, truth: offset, smearing: s)
        agrees(wrong, "wrong stepping before", correction: before, smearing: s)
        #expect(wrong.sources[w.port]?["status"] as? String == "falseticker", "\(leap)")

        // The second servers run `lead + past` ahead of the first.
        let pastOffset = truth + (Self.lead + Self.past).secondsDouble
        report("two stepping + smearing, after, leap unknown", unknown, truth: pastOffset, smearing: ps)
        let widening = unknown.sources[ps.port]?["smear_widening"] as? Double ?? .nan
        #expect(widening > 0.499 && widening < 0.501, "\(leap): \(widening)")
        let status = unknown.sources[ps.port]?["status"] as? String
        #expect(status == "survivor" || status == "selected", "\(leap): \(status ?? "none")")
        report("one stepping + smearing, after, table knows", tabled, truth: pastOffset, smearing: ps)
        agrees(tabled, "table after", correction: after, smearing: ps)
        #expect(abs(tabled.sources[ps.port]?["smear_widening"] as? Double ?? .nan) < 1e-6, "\(leap)")

        // Past the first servers' midnight by `past`: they stepped (and say LI 0). The anchor kept
        // from the sync before knows the leap: the smearing server maps exactly.
        let wait = ((wall + Self.lead + Self.past) - SystemWallClock().now()).secondsDouble
        try await Task.sleep(for: .seconds(max(0, wait)))
        let known = try await Self.sync([Self.address(a)] + smearing, state: state("one"))
        report("one stepping + smearing, after, anchor knows", known, truth: truth, smearing: s)
        agrees(known, "one stepping after", correction: after, smearing: s)
    }
}
