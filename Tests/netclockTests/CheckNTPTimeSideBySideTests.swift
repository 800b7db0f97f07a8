import Foundation
import LoopbackServers
import SNTP
import Testing
import TimeBase
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
        silent: Bool = false
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
        let theirArguments = [
            "-H", "127.0.0.1", "-p", "\(server.port)", "-w", "0.5", "-c", "1", "-t", silent ? "1" : "2",
        ]
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
        let (theirs, ours) = try await Self.both(offset: .milliseconds(milliseconds))
        #expect(theirs.status == status, "check_ntp_time: \(theirs.combined)")
        #expect(ours.status == status, "netclock: \(ours.stdout)\(ours.stderr)")
        // Ours holds the server's fixed offset within our error bound (it contains the truth);
        // theirs is off by at most half its round trip on the same loopback path, of the same order
        // as our bound, so the two agree within twice our bound plus a millisecond (ours is
        // printed to 10 µs). On an idle machine that is about 1 ms; under load a delayed
        // packet can widen both.
        let theirOffset = try #require(
            CheckCLITests.perfSeconds("offset", in: theirs.stdout), "\(theirs.stdout)")
        let ourOffset = try #require(CheckCLITests.perfSeconds("offset", in: ours.stdout), "\(ours.stdout)")
        let bound = try #require(CheckCLITests.perfSeconds("error_bound", in: ours.stdout), "\(ours.stdout)")
        #expect(abs(ourOffset - Double(milliseconds) / 1000) <= bound + 1e-5, "\(ours.stdout)")
        #expect(abs(theirOffset - ourOffset) < 2 * bound + 0.001, "\(theirs.stdout) vs \(ours.stdout)")
    }

    /// 0.3 s off with 0.35 s of root dispersion: check_ntp_time says OK (it ignores the
    /// dispersion), we say WARNING: the true offset may be 0.65 s, beyond `-w 0.5`.
    @Test func aWideBoundIsAWarningWhereTheySayOK() async throws {
        let (theirs, ours) = try await Self.both(offset: .milliseconds(300), dispersion: .milliseconds(350))
        #expect(theirs.status == 0, "check_ntp_time: \(theirs.combined)")
        #expect(theirs.stdout.hasPrefix("NTP OK: Offset 0.3"), "\(theirs.stdout)")
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
