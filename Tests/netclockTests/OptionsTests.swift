import NetworkClock
import SNTP
import Testing
import TimeValues

@testable import NetclockCLI

/// The hand-written argument parser, table-driven like swift-argument-parser's own tests.
struct OptionsTests {
    @Test func defaults() throws {
        let options = try QueryCommandOptions.parse([], accepting: [.query])
        #expect(options.servers.isEmpty)
        #expect(options.effectiveServers.map(\.host) == ["pool.ntp.org"])
        #expect(options.samples == 4 && options.port == 123)
        #expect(options.interval == .seconds(2) && options.timeout == .seconds(2))
        #expect(!options.json && options.addressFamily == .any)
    }

    @Test func ntsOptions() throws {
        let options = try QueryCommandOptions.parse(
            ["--nts", "time.example.com", "[::1]:14460", "--nts-mode", "prefer", "--ca-file", "/tmp/ca.pem"],
            accepting: [.query])
        #expect(options.servers.filter(\.usesNTS).count == 2)
        #expect(options.servers.map(\.effectivePort) == [4460, 14460])
        #expect(options.syncPolicy.usesNTS && options.syncPolicy.ntsMode == .prefer)
        #expect(options.syncPolicy.trustRoots == .certificateFile("/tmp/ca.pem"))
        let plain = try QueryCommandOptions.parse(["time.example.com"], accepting: [.query])
        #expect(!plain.syncPolicy.usesNTS && plain.syncPolicy.ntsMode == .require)
        #expect(plain.syncPolicy.trustRoots == .system)
        for bad in [["--nts-mode", "always"], ["--nts-mode"], ["--ca-file", ""], ["--ca-file"]] {
            #expect(throws: UsageError.self) { try QueryCommandOptions.parse(bad, accepting: [.query]) }
        }
        #expect(throws: UsageError.self) { try QueryCommandOptions.parse(["--nts"], accepting: [.state]) }
    }

    @Test func everyQueryOption() throws {
        let options = try QueryCommandOptions.parse(
            [
                "127.0.0.1:11123", "[::1]:5", "example.org", "--port", "1123", "--samples", "8",
                "--interval", "0", "--timeout", "0.25", "-6", "--json", "--http", "http://127.0.0.1:8080/",
            ], accepting: [.query])
        #expect(options.servers.map(\.description) == ["127.0.0.1:11123", "[::1]:5", "example.org"])
        #expect(options.port == 1123 && options.samples == 8)
        #expect(options.interval == .zero && options.timeout == .milliseconds(250))
        #expect(options.addressFamily == .ipv6 && options.json)
        #expect(options.httpURLs == ["http://127.0.0.1:8080/"])
        #expect(options.syncPolicy.query.samples == 8)
        #expect(options.syncPolicy.defaultPort == 1123)
    }

    /// `--timeout` bounds each reply of every kind: an HTTP(S) request's too; without it, HTTP keeps
    /// its own default.
    @Test func timeoutAlsoBoundsEachHTTPRequest() throws {
        let given = try QueryCommandOptions.parse(
            ["--http", "http://127.0.0.1:8080/", "--timeout", "0.5"], accepting: [.query])
        #expect(given.configuration(store: nil).http.requestTimeout == .milliseconds(500))
        #expect(given.configuration(store: nil).query.timeout == .milliseconds(500))
        let absent = try QueryCommandOptions.parse(["--http", "http://127.0.0.1:8080/"], accepting: [.query])
        #expect(absent.configuration(store: nil).http.requestTimeout == .seconds(3))
        #expect(
            absent.configuration(store: nil).http.requestTimeout == NetworkClock.HTTPOptions().requestTimeout)
    }

    @Test func smearingServers() throws {
        let options = try QueryCommandOptions.parse(
            ["pool.example", "--smearing-server", "time.google.com", "--smearing-server", "127.0.0.1:1123"],
            accepting: [.query])
        // Asked like any server, and marked as smearing in the policy.
        #expect(options.servers.map(\.description) == ["pool.example", "time.google.com", "127.0.0.1:1123"])
        #expect(options.syncPolicy.smearingServers == ["time.google.com", "127.0.0.1:1123"])
        #expect(options.configuration(store: nil).smearingServers.count == 2)
        let alone = try QueryCommandOptions.parse(
            ["--smearing-server", "time.google.com"], accepting: [.query])
        #expect(alone.effectiveServers.map(\.description) == ["time.google.com"])
        for bad in [["--smearing-server"], ["--smearing-server", ""], ["--smearing-server", "host:0"]] {
            #expect(throws: UsageError.self) { try QueryCommandOptions.parse(bad, accepting: [.query]) }
        }
    }

    @Test(arguments: [
        (["--samples", "0"], "--samples must be 1-8, got 0"),
        (["--samples", "9"], "--samples must be 1-8, got 9"),
        (["--port", "0"], "invalid --port 0"),
        (["--port"], "--port needs a value"),
        (["--timeout", "0"], "invalid --timeout 0 (seconds, >0-86400)"),
        (["--interval", "-1"], "invalid --interval -1 (seconds, 0-86400)"),
        (["--interval", "nan"], "invalid --interval nan (seconds, 0-86400)"),
        (["--bogus"], "unknown option --bogus"),
        (["-4", "-6"], "-4 and -6 exclude each other"),
        (["host:99999"], "invalid port in 'host:99999' (expected 1-65535)"),
        (["--http", "ftp://x"], "--http needs an http:// or https:// URL, got ftp://x"),
        (["--http-only"], "--http-only needs at least one --http URL"),
        (["--state", "x"], "unknown option --state"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try QueryCommandOptions.parse(arguments, accepting: [.query]) }
    }

    @Test func nowTakesNoServers() {
        #expect(throws: UsageError("unexpected argument 127.0.0.1")) {
            try QueryCommandOptions.parse(["127.0.0.1"], accepting: [.state])
        }
        #expect(throws: UsageError("unknown option --samples")) {
            try QueryCommandOptions.parse(["--samples", "2"], accepting: [.state])
        }
    }

    @Test func stateAndWatchOptions() throws {
        let sync = try QueryCommandOptions.parse(["--state", "/tmp/a.json"], accepting: [.query, .state])
        #expect(sync.statePath == "/tmp/a.json")
        let watch = try QueryCommandOptions.parse(
            ["--count", "3", "--every", "0.5"], accepting: [.query, .watch])
        #expect(watch.count == 3 && watch.every == .milliseconds(500))
    }

    /// `watch` says once when etiquette (`--samples` requests a round, `--interval` apart, across
    /// rounds too) spaces its rounds further apart than `--every`; NTS servers are spaced alike.
    @Test func watchSpacingNotice() throws {
        func notice(_ arguments: [String]) throws -> String? {
            WatchCommand.spacingNotice(try QueryCommandOptions.parse(arguments, accepting: [.query, .watch]))
        }
        #expect(
            try notice(["--nts", "time.example.com", "--every", "0.5"])
                == "netclock: rounds every 8 s, not every 0.5 s: a round sends each server 4 requests"
                + " (--samples), and requests to a server are at least 2 s apart (--interval), as public"
                + " servers expect")
        #expect(try notice(["--every", "5", "--samples", "1"]) == nil)
        #expect(
            try notice(["--every", "1", "--samples", "1"])?.hasPrefix(
                "netclock: rounds every 2 s, not every 1 s: a round sends each server 1 request (") == true)
        #expect(try notice(["--every", "0.5", "--count", "1"]) == nil, "one round has no spacing")
        #expect(try notice(["--every", "8"]) == nil)
        #expect(try notice(["--every", "0.5", "--interval", "0"]) == nil)
        #expect(try notice(["--every", "0.5", "--http-only", "--http", "https://example.com/"]) == nil)
        #expect(try notice(["--every", "0.5", "--roughtime", "servers.json"]) == nil)
        #expect(
            WatchCommand.seconds(.milliseconds(250)) == "0.25" && WatchCommand.seconds(.seconds(64)) == "64")
    }
}
