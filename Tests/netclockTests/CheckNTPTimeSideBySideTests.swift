import Foundation
import LoopbackServers
import SNTP
import Testing
import TimeValues
import WallClockReference

/// `netclock check` beside the Monitoring Plugins' `check_ntp_time`, against the same fake server
/// with the same thresholds: the same exit status wherever the error bound cannot change the
/// verdict, and the proven verdict where it can (`check_ntp_time` has no bound: it ignores the
/// root dispersion).
@Suite(
    .serialized, .enabled(if: MonitoringPeers.checkNTPTimeRunnable, MonitoringPeers.checkNTPTimeMissing),
    .wallClockReference)
struct CheckNTPTimeSideBySideTests {
    /// Both programs' exit statuses against a server `offset` ahead with `dispersion` of root
    /// dispersion, `-w 0.5 -c 1`. `silent`: the server never answers, so nothing but timeouts is
    /// measured: both run at the same time, each with a short timeout (theirs whole seconds: 1 s;
    /// ours 0.5 s a sample, 1 s for its two), which changes no verdict.
    static func both(
        offset: Duration, dispersion: Duration = .microseconds(100),
        behaviour: FakeNTPServer.Behaviour? = nil,
        silent: Bool = false, verbose: Bool = false
    )
        async throws -> (theirs: InteropTool.Output, ours: CLIRunner.Output)
    {
        let tool = try #require(
            FileManager.default.isExecutableFile(atPath: MonitoringPeers.checkNTPTime)
                ? MonitoringPeers.checkNTPTime : nil,
            "check_ntp_time is not installed, and NETCLOCK_REQUIRE_PEERS=1 requires it")
        var configuration = FakeNTPServer.Configuration(host: "127.0.0.1", offset: offset)
        configuration.rootDispersion = dispersion
        if let behaviour { configuration.behaviour = behaviour }
        let server = try FakeNTPServer(configuration: configuration)
        defer { server.stop() }
        let theirArguments =
            [
                "-H", "127.0.0.1", "-p", "\(server.port)", "-w", "0.5", "-c", "1", "-t", silent ? "1" : "2",
            ] + (verbose ? ["-vvv"] : [])
        let ourArguments = [
            "check", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "--timeout",
            silent ? "0.5" : "1", "-w", "0.5", "-c", "1",
        ]
        if silent {
            async let theirs = BlockingCases.onThread {
                try InteropTool.run(tool, theirArguments, timeout: .seconds(20))
            }
            async let ours = CLIRunner.run(ourArguments)
            // Each awaited into a local first: Tools/check-split-tuples.sh.
            let theirResult = try await theirs
            let ourResult = try await ours
            return (theirResult, ourResult)
        }
        let theirs = try InteropTool.run(tool, theirArguments, timeout: .seconds(20))
        let ours = try await CLIRunner.run(ourArguments)
        return (theirs, ours)
    }

    /// Offsets well away from the thresholds (loopback bounds are a fraction of a millisecond):
    /// the bound cannot change the verdict, so both say the same.
    @Test(arguments: [
        (0, 0), (100, 0), (-300, 0), (700, 1), (-700, 1), (1500, 2), (-3000, 2), (45_000, 2),
    ])
    func sameVerdictWhereTheBoundCannotMatter(milliseconds: Int, status: Int32) async throws {
        let (theirs, ours) = try await Self.both(offset: .milliseconds(milliseconds), verbose: true)
        #expect(theirs.status == status, "check_ntp_time: \(theirs.combined)")
        #expect(ours.status == status, "netclock: \(ours.stdout)\(ours.stderr)")
        let truth = Double(milliseconds) / 1000
        // Ours holds the server's fixed offset within our error bound (it contains the truth;
        // ours is printed to 10 µs).
        let statusLine = String(theirs.stdout.split(separator: "\n").last ?? "")
        let theirOffset = try #require(
            CheckCLITests.perfSeconds("offset", in: statusLine), "\(theirs.stdout)")
        let ourOffset = try #require(CheckCLITests.perfSeconds("offset", in: ours.stdout), "\(ours.stdout)")
        let bound = try #require(CheckCLITests.perfSeconds("error_bound", in: ours.stdout), "\(ours.stdout)")
        #expect(abs(ourOffset - truth) <= bound + 1e-5, "\(ours.stdout)")
        // Theirs averages its samples' offsets, each within half that sample's own round trip of
        // the truth: its error is bounded by its slowest round trip, which has nothing to do with
        // our bound (under load a packet of theirs waits while ours did not). Its round trips come
        // from its own -vvv lines (T1, T2, T3 to the microsecond and the offset give T4); they
        // agree within both errors (theirs printed to 1 µs, the timestamps to 1 µs each).
        let roundTrips = Self.roundTrips(in: theirs.stdout)
        #expect(roundTrips.count == 4, "check_ntp_time's samples: \(theirs.stdout)")
        let theirError = (roundTrips.max() ?? .infinity) / 2 + 3e-6
        #expect(abs(theirOffset - truth) <= theirError, "\(theirOffset) vs \(truth) within \(theirError)")
        #expect(
            abs(theirOffset - ourOffset) <= bound + 1e-5 + theirError, "\(theirs.stdout) vs \(ours.stdout)")
    }

    /// Each sample's round trip from `check_ntp_time -vvv`'s lines: its origin (T1), receive (T2)
    /// and transmit (T3) timestamps and the offset ((T2 − T1) + (T3 − T4)) / 2 it computed give
    /// T4; the round trip is (T4 − T1) − (T3 − T2).
    static func roundTrips(in verbose: String) -> [Double] {
        var fields: [String: Double] = [:]
        var trips: [Double] = []
        for line in verbose.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "=" })
            guard words.count == 2, let value = Double(words[1]) else { continue }
            let name = String(words[0])
            if name == "offset", let t1 = fields["origts"], let t2 = fields["rxts"], let t3 = fields["txts"] {
                let t4 = t2 + t3 - t1 - 2 * value
                trips.append((t4 - t1) - (t3 - t2))
                fields = [:]
            } else if ["origts", "rxts", "txts"].contains(name) {
                fields[name] = value
            }
        }
        return trips
    }

    /// 0.3 s off with 0.35 s of root dispersion: check_ntp_time says OK (it ignores the
    /// dispersion), we say WARNING: the true offset may be 0.65 s, beyond `-w 0.5`.
    @Test func aWideBoundIsAWarningWhereTheySayOK() async throws {
        let (theirs, ours) = try await Self.both(
            offset: .milliseconds(300), dispersion: .milliseconds(350), verbose: true)
        #expect(theirs.status == 0, "check_ntp_time: \(theirs.combined)")
        // Their 0.3 s, within half their slowest round trip (a loaded machine can make it 0.2994).
        let statusLine = String(theirs.stdout.split(separator: "\n").last ?? "")
        #expect(statusLine.hasPrefix("NTP OK: Offset "), "\(theirs.stdout)")
        let theirOffset = try #require(
            CheckCLITests.perfSeconds("offset", in: statusLine), "\(theirs.stdout)")
        let theirError = (Self.roundTrips(in: theirs.stdout).max() ?? .infinity) / 2 + 3e-6
        #expect(abs(theirOffset - 0.3) <= theirError, "\(theirOffset) within \(theirError)")
        #expect(ours.status == 1, "netclock: \(ours.stdout)")
        #expect(ours.stdout.contains(": offset may alert -w 0.5 within its error bound|"), "\(ours.stdout)")
        let bound = try #require(CheckCLITests.perfSeconds("error_bound", in: ours.stdout))
        #expect(bound >= 0.35 && bound < 0.36, "\(ours.stdout)")
    }

    /// 1.2 s off with 0.5 s of dispersion: CRITICAL to them, not proven to us (the true offset
    /// may be 0.7 s): WARNING.
    @Test func anUnprovenCriticalIsAWarning() async throws {
        let (theirs, ours) = try await Self.both(offset: .milliseconds(1200), dispersion: .milliseconds(500))
        #expect(theirs.status == 2, "check_ntp_time: \(theirs.combined)")
        #expect(ours.status == 1, "netclock: \(ours.stdout)")
        #expect(ours.stdout.contains(": offset may alert -c 1 within its error bound|"), "\(ours.stdout)")
    }

    /// No reply: check_ntp_time says CRITICAL (UNKNOWN only with -q); we say UNKNOWN: there is no
    /// time to judge. Both wait out their (short) timeouts at the same time.
    @Test func noReplyIsUnknownWhereTheySayCritical() async throws {
        let (theirs, ours) = try await Self.both(offset: .zero, behaviour: .noReply, silent: true)
        #expect(theirs.status == 2, "check_ntp_time: \(theirs.combined)")
        #expect(ours.status == 3, "netclock: \(ours.stdout)")
    }
}
