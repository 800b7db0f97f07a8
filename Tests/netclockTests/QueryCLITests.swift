import Foundation
import LoopbackServers
import LoopbackTestSupport
import NetClockPlatform
import NetworkClock
import SNTP
import Testing
import TimeValues

@testable import NetclockCLI
import WallClockReference

/// `netclock query` end to end: the built binary against loopback fake servers.
@Suite(.serialized, .wallClockReference)
struct QueryCLITests {
    static func server(
        offset: Duration = .zero, host: String = "127.0.0.1",
        _ configure: (inout FakeNTPServer.Configuration) -> Void = { _ in }
    ) throws -> FakeNTPServer {
        var configuration = FakeNTPServer.Configuration(host: host, offset: offset)
        configure(&configuration)
        return try FakeNTPServer(configuration: configuration)
    }

    @Test func textOutput() async throws {
        let server = try Self.server(offset: .milliseconds(1500))
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "4",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("127.0.0.1:\(server.port)  offset +1."))
        // The printed offset is within half the printed round trip of the server's +1.5 s (same
        // clock on both ends). A fixed 2 ms failed when load stretched the round trip.
        let offset = try #require(PrintedDuration.seconds(after: "offset", in: lines[0]), "\(lines[0])")
        let delay = try #require(PrintedDuration.seconds(after: "delay", in: lines[0]), "\(lines[0])")
        #expect(abs(offset - 1.5) <= delay / 2 + PrintedDuration.sampleTolerance, "\(lines[0])")
        #expect(
            lines[0].contains("stratum 2") && lines[0].contains("leap none") && lines[0].contains("selected"))
        #expect(lines[0].contains("(4/4 samples"))
        #expect(lines[1].hasPrefix("time ") && lines[1].contains("offset +1."))
        #expect(output.stderr.isEmpty)
    }

    @Test func jsonOutputHasEveryField() async throws {
        let server = try Self.server(offset: .seconds(-2)) { $0.stratum = NTPPacket.Stratum(rawValue: 3) }
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "8", "--json",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let json = try output.json()
        let offset = try #require(json["offset"] as? Double)
        let bound = try #require(json["error_bound"] as? Double)
        #expect(abs(offset + 2) <= bound, "offset \(offset) ± \(bound): the truth is −2 s")
        #expect((json["delay"] as? Double).map { $0 >= 0 && $0 < 0.05 } == true)
        #expect((json["error_bound"] as? Double).map { $0 > 0 && $0 < 0.05 } == true)
        #expect(json["source"] as? String == "ntp")
        let time = try #require(json["time"] as? String)
        #expect(time.hasSuffix("Z") && time.contains("T") && time.contains("."))
        let servers = try #require(json["servers"] as? [[String: Any]])
        #expect(servers.count == 1)
        let entry = servers[0]
        #expect(entry["host"] as? String == "127.0.0.1:\(server.port)")
        #expect(entry["address"] as? String == "127.0.0.1:\(server.port)")
        #expect(entry["status"] as? String == "selected")
        #expect(entry["stratum"] as? Int == 3)
        #expect(entry["leap"] as? String == "none")
        #expect(entry["refid"] as? String != nil)
        let samples = try #require(entry["samples"] as? [[String: Any]])
        #expect(samples.count == 8)
        for sample in samples {
            #expect(sample["accepted"] as? Bool == true)
            for key in ["t1", "t2", "t3", "t4", "offset", "delay"] {
                #expect(sample[key] as? Double != nil, "missing \(key)")
            }
            let t1 = sample["t1"] as? Double ?? 0
            let t2 = sample["t2"] as? Double ?? 0
            let delay = sample["delay"] as? Double ?? 0
            // T2 is on the server's clock, 2 s behind: T2 − T1 is −2 s plus the request's one-way
            // delay, which lies within the round trip (1 µs for the JSON's rounding).
            #expect((-1e-6...(delay + 1e-6)).contains((t2 - t1) + 2), "T2 − T1 = \(t2 - t1), delay \(delay)")
        }
    }

    @Test func timeoutExitsOneWithTheReason() async throws {
        let server = try Self.server { $0.behaviour = .noReply }
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "--timeout", "0.2",
        ])
        #expect(output.status == 1)
        #expect(output.stderr.contains("no reply (timed out)"), "stderr: \(output.stderr)")
        #expect(output.elapsed < .seconds(5))
    }

    @Test func rejectedRepliesExitOneWithTheReason() async throws {
        let server = try Self.server { $0.behaviour = .kissOfDeath(code: "DENY") }
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "127.0.0.1:\(server.port)", "--interval", "0", "--json",
        ])
        #expect(output.status == 1)
        #expect(output.stderr.contains("Kiss-o'-Death DENY"))
        let json = try output.json()
        let servers = try #require(json["servers"] as? [[String: Any]])
        #expect(servers.first?["status"] as? String == "kod")
        #expect(servers.first?["kiss_code"] as? String == "DENY")
        let samples = try #require(servers.first?["samples"] as? [[String: Any]])
        #expect(samples.count == 1, "DENY stops the burst")
        #expect(samples.first?["reason"] as? String == "kiss_of_death")
    }

    @Test func spoofedRepliesAreListedWithTheirReason() async throws {
        let server = try Self.server { $0.behaviour = .wrongOrigin }
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "query", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "1", "--timeout", "0.2",
            "--json",
        ])
        #expect(output.status == 1)
        #expect(output.stderr.contains("origin timestamp does not match"))
        let json = try output.json()
        let servers = try #require(json["servers"] as? [[String: Any]])
        #expect(servers.first?["status"] as? String == "rejected")
        let reasons = (servers.first?["samples"] as? [[String: Any]])?.compactMap { $0["reason"] as? String }
        #expect(reasons == ["origin_mismatch", "timeout"])
    }

    @Test func refusedExitsOne() async throws {
        let probe = try Self.server()
        let port = probe.port
        probe.stop()
        let output = try await CLIRunner.run(["query", "127.0.0.1:\(port)", "--interval", "0"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("connection refused"))
        #expect(output.elapsed < .seconds(5))
    }

    @Test(.enabled(if: LoopbackEnvironment.ipv6LoopbackAvailable, noIPv6))
    func ipv6AndTheFamilyFlags() async throws {
        let server = try Self.server(offset: .seconds(1), host: "::1")
        defer { server.stop() }
        let v6 = try await CLIRunner.run([
            "query", "[::1]:\(server.port)", "--interval", "0", "--samples", "1", "-6",
        ])
        #expect(v6.status == 0, "stderr: \(v6.stderr)")
        #expect(v6.stdout.hasPrefix("[::1]:\(server.port)  offset "), "\(v6.stdout)")
        // One sample: its offset is within half its round trip of the server's +1 s. (The offset
        // prints as `+999.9…ms` when the reply path was the slower one: comparing the string with
        // `+0.99` failed then, which load makes likely.)
        let line = v6.stdout.prefix { $0 != "\n" }
        let offset = try #require(PrintedDuration.seconds(after: "offset", in: line), "\(line)")
        let delay = try #require(PrintedDuration.seconds(after: "delay", in: line), "\(line)")
        #expect(abs(offset - 1) <= delay / 2 + PrintedDuration.sampleTolerance, "\(line)")
    }

    /// `-4` leaves an IPv6 literal no address to query (resolution only: no IPv6 needed).
    @Test func theIPv4FlagRefusesAnIPv6Literal() async throws {
        let v4 = try await CLIRunner.run([
            "query", "::1", "--port", "9", "--interval", "0", "-4",
        ])
        #expect(v4.status == 1)
        #expect(v4.stderr.contains("no address of the requested family"))
    }

    /// A usage error prints its reason and where help is, two lines on stderr (as git, curl and the
    /// Monitoring Plugins do), not the usage block that would bury the reason; exit status 2. All
    /// at once: each run only parses its arguments.
    @Test func usageErrorsPrintTheReasonAndWhereHelpIs() async {
        let reasons = [
            ["query", "--samples", "0"]: "--samples must be 1-8, got 0",
            ["query", "--bogus"]: "unknown option --bogus",
            ["query", "--port", "x"]: "invalid --port x",
            ["query", "host:0"]: "invalid port in 'host:0' (expected 1-65535)",
            ["query", "[::1"]: "invalid server '[::1' (expected host, host:port or [v6addr]:port)",
            ["query", "--timeout", "-1"]: "invalid --timeout -1 (seconds, >0-86400)",
            ["watch", "--every"]: "--every needs a value",
            ["now", "127.0.0.1"]: "unexpected argument 127.0.0.1",
            ["frobnicate"]: "unknown command 'frobnicate'",
        ]
        await concurrently(Array(reasons.keys)) { arguments in
            let reason = reasons[arguments] ?? ""
            let output = try await CLIRunner.run(arguments)
            #expect(output.status == 2, "\(arguments)")
            #expect(
                output.stderr == "netclock: \(reason)\nsee 'netclock --help'\n",
                "\(arguments): \(output.stderr)")
            #expect(output.stdout.isEmpty, "\(arguments)")
        }
    }

    /// Without a command there is no reason to give: the usage block, on stderr, exit status 2.
    @Test func noCommandPrintsTheUsage() async throws {
        let output = try await CLIRunner.run([])
        #expect(output.status == 2)
        #expect(output.stderr == HelpText.usage + "\n")
        #expect(output.stdout.isEmpty)
    }

    @Test func watchPrintsOneLinePerRound() async throws {
        let server = try Self.server(offset: .milliseconds(-40))
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "watch", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "2", "--count", "3",
            "--every", "0.1",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            // The server's −40 ms lies within the printed error bound, rather than matching the
            // printed digits `-40.`/`-39.` (±1 ms, which a loaded machine's round trip can exceed).
            let offset = PrintedDuration.seconds(after: "offset", in: line)
            let bound = PrintedDuration.bound(in: line)
            #expect(offset != nil && bound != nil, "\(line)")
            if let offset, let bound {
                #expect(abs(offset + 0.040) <= bound + PrintedDuration.sampleTolerance, "\(line)")
            }
            #expect(line.contains("agree 1/1"))
        }
        #expect(server.requestCount == 6)
        #expect(output.stderr.isEmpty, "no spacing, so nothing to say: \(output.stderr)")
    }

    /// `--every` is from one round's start to the next: rounds whose replies take 0.3 s still start
    /// 0.4 s apart (not 0.3 + 0.4 s, as when it was the pause after a round). The same 50 ms early
    /// and 250 ms late margins as with the 0.4 s and 0.6 s this had, which 0.7 s still exceeds.
    @Test func watchRoundsStartEveryInterval() async throws {
        let server = try Self.server { $0.processingDelay = .constant(.milliseconds(300)) }
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "watch", "127.0.0.1:\(server.port)", "--interval", "0", "--samples", "1", "--every", "0.4",
            "--count", "2",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let received = server.requests.map(\.receivedAtMonotonic)
        try #require(received.count == 2)
        let gap = received[1] - received[0]
        #expect(gap >= .milliseconds(350) && gap < .milliseconds(650), "\(gap)")
    }

    /// `--every` shorter than etiquette allows: one line on stderr says what spacing is used and
    /// why, and the rounds are that far apart (round 2's first request not before 0.2 s, its last
    /// 0.1 s later). (Was 0.25 s between requests: what is checked only needs `--every` below
    /// `--samples` × `--interval`.)
    @Test func watchSaysOnceWhenEtiquetteSpacesTheRounds() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let output = try await CLIRunner.run([
            "watch", "127.0.0.1:\(server.port)", "--samples", "2", "--interval", "0.1", "--every", "0.05",
            "--count", "2",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(
            output.stderr == "netclock: rounds every 0.2 s, not every 0.05 s: a round sends each server"
                + " 2 requests (--samples), and requests to a server are at least 0.1 s apart (--interval),"
                + " as public servers expect\n")
        #expect(output.stdout.split(separator: "\n").count == 2)
        #expect(server.requestCount == 4)
        #expect(output.elapsed >= .milliseconds(300))
    }

    /// The three runs at once.
    @Test func helpAndVersion() async throws {
        async let helpRun = CLIRunner.run(["--help"])
        async let queryHelpRun = CLIRunner.run(["query", "--help"])
        async let versionRun = CLIRunner.run(["--version"])
        let help = try await helpRun
        #expect(help.status == 0)
        #expect(help.stdout == HelpText.full + "\n")
        let queryHelp = try await queryHelpRun
        #expect(queryHelp.status == 0 && queryHelp.stdout == help.stdout)
        let version = try await versionRun
        #expect(version.status == 0)
        #expect(version.stdout == "netclock 0.1.0\n")
    }

    @Test func helpTextIsPinned() {
        // Scripts and the README rely on these lines; change them deliberately.
        #expect(
            HelpText.usage.contains(
                "netclock query [SERVER ...] [--port N] [--samples N] [--interval SEC] [--timeout SEC]"))
        #expect(
            HelpText.full.contains(
                "Exit status: 0 success, 1 no usable time source, or set refused a correction, 2 usage error."
            ))
    }

    /// The whole help as the option table renders it: a change to the table or the renderer shows
    /// here, to be made deliberately.
    @Test func theWholeHelpIsPinned() {
        let expected = """
            usage: netclock query [SERVER ...] [--port N] [--samples N] [--interval SEC] [--timeout SEC]
                                  [--http URL ...] [--http-only] [--http-header NAME] [--proxy URL] [--no-proxy]
                                  [--nts] [--nts-mode require|prefer|mix] [--roughtime FILE ...]
                                  [--malfeasance-report FILE] [--certificate-time auto|wall-clock]
                                  [--allow-downgrade] [--leap-seconds FILE] [--smearing-server SERVER ...]
                                  [--ca-file FILE] [-4|-6] [--json]
                   netclock sync  [same options] [--smear] [--state FILE] [--max-bound SEC]
                   netclock now   [--smear] [--state FILE] [--max-bound SEC] [--json]
                   netclock watch [same options] [--count N] [--every SEC] [--metrics FILE]
                   netclock check [same options] [--smear] [--state FILE] [-w|--warning RANGE]
                                  [-c|--critical RANGE] [--max-bound SEC] [--max-age SEC] [-v|--verbose ...]
                   netclock set   [same options] [--smear] [--state FILE] [--max-bound SEC] [--step|--slew]
                                  [--step-threshold SEC] [--max-step SEC] [--dry-run] [--force]
                   netclock completion bash|zsh|fish
                   netclock man
                   netclock --help | --version

            Commands:
              query        ask NTP servers (or HTTP URLs) for the time and show offsets, delays, bounds
              sync         query, then store the result as an anchor for `now` (survives restarts, not reboots)
              now          print the trusted time from the stored anchor, without any network traffic
              watch        query repeatedly and print one line per round
              check        monitoring plugin: OK, WARNING, CRITICAL or UNKNOWN for the system clock's offset,
                           judged with its error bound (with --state alone: from the anchor, offline)
              set          sync, then correct the system clock by the trusted offset (needs CAP_SYS_TIME)
              completion   print the shell completion script for bash, zsh or fish
              man          print this manual as a man page (mdoc source: netclock man | man -l -)

            SERVER is host, host:port or [v6addr]:port (default: pool.ntp.org, all its addresses).

            Options:
              --port N          port for servers given without one (default 123)
              --samples N       requests per server address, 1-8 (default 4)
              --interval SEC    seconds between requests to one address (default 2; 0 only for your own servers)
              --timeout SEC     seconds to wait for each reply (default 2)
              --http URL        HTTP(S) URL to take the time from when NTP fails (repeatable)
              --http-only       skip NTP and use the --http URLs only
              --http-header NAME
                                response header with a millisecond server timestamp (default: Date only)
              --proxy URL       send --http requests through this http:// proxy,
                                [http://][user[:password]@]host[:port] (default: https_proxy/HTTPS_PROXY for
                                https://, http_proxy for http://, except the hosts in no_proxy/NO_PROXY)
              --no-proxy        connect to --http URLs directly, ignoring https_proxy, HTTPS_PROXY and
                                http_proxy
              --nts             every SERVER is an NTS-KE server (host or host:port, default port 4460):
                                authenticated time (RFC 8915)
              --nts-mode MODE   require (default): only authenticated (NTS, Roughtime) sources decide the time;
                                prefer: others only when none of them answered; mix: all alike
              --roughtime FILE  also ask the Roughtime servers of this server list (Cloudflare's ecosystem
                                JSON): signed time that needs no certificate (repeatable; alone, no NTP server
                                is asked)
              --malfeasance-report FILE
                                write the proof when a Roughtime server signs a wrong time
              --certificate-time auto|wall-clock
                                which time certificates (NTS-KE, https://) are checked against: auto (default)
                                the trusted clock of --state's anchor, else Roughtime's time, else a bootstrap
                                checked against the time obtained; wall-clock: strict
              --allow-downgrade with --nts-mode prefer|mix: accept time from unauthenticated sources when no NTS
                                source answered (exit 0, not 1); never replaces an authenticated anchor
              --leap-seconds FILE
                                read leap seconds from this IERS/NIST leap-seconds.list (default
                                /usr/share/zoneinfo/leap-seconds.list; none: only the servers' leap indicator);
                                an expired or damaged table is ignored with a note
              --smearing-server SERVER
                                also ask this NTP server (host or host:port), known to smear leap seconds over
                                24 h from noon to noon UTC as time.google.com does: its time is mapped onto
                                stepping time before the servers are compared (repeatable)
              --smear           smear leap seconds over 24 h (noon to noon UTC, as the smearing public servers
                                do) instead of stepping as POSIX time does
              --ca-file FILE    trust only this PEM file's CAs for NTS-KE and https:// (default: the system's)
              -4, -6            use IPv4 or IPv6 addresses only
              --json            print one JSON object
              --state FILE      anchor file (default $XDG_CACHE_HOME/netclock/anchor.json)
              --count N         watch: stop after N rounds
              --every SEC       watch: seconds between round starts (default 64); with NTP servers at least
                                --samples times --interval, as requests to a server are spaced
              --metrics FILE    watch: after every round, write the Prometheus text format to FILE (a temporary
                                file renamed into place) for node_exporter's textfile collector: offset, bound,
                                authentication, last sync age, sync counters, frequency, per-server offset,
                                delay and status
              -w, --warning RANGE
                                check: WARNING unless the offset's magnitude is proven inside RANGE (seconds,
                                Monitoring Plugins syntax: 10, 10:, ~:10, 10:20, @10:20; default 60)
              -c, --critical RANGE
                                check: CRITICAL when the offset's magnitude is proven outside RANGE, even at the
                                edges of its error bound (default 120)
              --max-bound SEC   the widest error bound accepted: sync and set send nothing while the stored
                                anchor's bound, aged to now, is within SEC and it is authenticated where --nts
                                asks (set then corrects the clock from it); now exits 1, and check is UNKNOWN,
                                when the bound is wider (default: any bound)
              --max-age SEC     check --state: UNKNOWN when the stored anchor is older than SEC (default: any
                                age; its bound grows with age)
              -v, --verbose     check: print a line per source after the status line
              --step, --slew    set: always step (one relative clock_adjtime call), or always slew (the kernel's
                                single-shot adjustment, 500 µs per second); default: slew up to
                                --step-threshold, step beyond
              --step-threshold SEC
                                set: the largest correction slewed rather than stepped (default 0.5, about 17
                                minutes of slewing)
              --max-step SEC    set: the largest correction unauthenticated time (NTP, HTTP(S)) may make
                                (default 1000, ntpd's panic threshold); NTS and Roughtime time may correct any
                                distance
              --dry-run         set: sync and decide as usual, but change neither the clock nor its kernel
                                status
              --force           set: correct the clock although another time daemon (chronyd, ntpd, ntpd-rs,
                                systemd-timesyncd) or a kernel discipline was found
              -h, --help        print this help
              --version         print the version

            Exit status: 0 success, 1 no usable time source, or set refused a correction, 2 usage error.
            check: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (Monitoring Plugins); `netclock check --help`.
            """
        #expect(HelpText.full == expected)
    }
}
