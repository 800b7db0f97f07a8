// fake-ntp-server: the loopback fake SNTP server as a command, for demos, scripts and manual tests.
// All behaviour lives in LoopbackServers (FakeNTPServer and its CommandLineOptions); this file only
// wires it to the process: arguments, the `listening on` line, signals and exit status.

import LoopbackServers
import NetClockPlatform
import NetClockTestSupport

let options: FakeNTPServer.CommandLineOptions
do {
    options = try FakeNTPServer.CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    ProcessControl.writeError("fake-ntp-server: \(error.message)")
    ProcessControl.writeError("Run 'fake-ntp-server --help' for usage.")
    ProcessControl.exit(2)
}

switch options.action {
case .showHelp:
    print(FakeNTPServer.CommandLineOptions.help)
    ProcessControl.exit(0)
case .showVersion:
    print(FakeNTPServer.CommandLineOptions.version)
    ProcessControl.exit(0)
case .serve:
    break
}

// Block SIGINT and SIGTERM before the server thread starts, so every thread inherits the mask and the
// signals stay pending until the loop below takes them: no handler, no global state.
ProcessControl.blockStopSignals()

if let ntsConfiguration = options.ntsConfiguration {
    serveNTS(ntsConfiguration, count: options.count, verbose: options.verbose)
}

let server: FakeNTPServer
do {
    server = try FakeNTPServer(configuration: options.configuration)
} catch {
    ProcessControl.writeError("fake-ntp-server: \(error.reason)")
    ProcessControl.exit(1)
}

print("listening on \(server.address)")
ProcessControl.flushStandardOutput()  // so a script reading the pipe sees the line now

var reported = 0  // log entries already printed (verbose) or counted
var served = 0
while true {
    if ProcessControl.waitForStopSignal(timeout: .milliseconds(20)) { break }
    // Report finished requests in order; one still in flight holds back those after it.
    for entry in server.requests(from: reported) {
        guard entry.isComplete else { break }
        if options.verbose { ProcessControl.writeError(entry.summary) }
        reported += 1
        served += 1
    }
    if let count = options.count, served >= count { break }
}
server.stop()
ProcessControl.exit(0)

/// `--nts`: serves a FakeNTSServer until a stop signal, or until `count` authenticated NTS requests;
/// with `verbose`, prints the statistics whenever they change. Never returns.
func serveNTS(_ configuration: FakeNTSServer.Configuration, count: Int?, verbose: Bool) -> Never {
    let server: FakeNTSServer
    do {
        server = try FakeNTSServer(configuration: configuration)
    } catch {
        ProcessControl.writeError("fake-ntp-server: \(error.reason)")
        ProcessControl.exit(1)
    }
    let host = server.host.contains(":") ? "[\(server.host)]" : server.host
    print("listening on \(host):\(server.kePort)")
    print("ntp on \(host):\(server.ntpPort)")
    ProcessControl.flushStandardOutput()
    var last = server.statistics
    while !ProcessControl.waitForStopSignal(timeout: .milliseconds(20)) {
        let statistics = server.statistics
        if verbose, statistics != last {
            ProcessControl.writeError(
                "nts-ke \(statistics.keHandshakes) handshakes, \(statistics.keFailures) failed; "
                    + "ntp \(statistics.authenticatedRequests) authenticated, \(statistics.plainRequests) plain, "
                    + "\(statistics.rejectedTotal) rejected; \(statistics.cookiesIssued) cookies issued")
        }
        last = statistics
        if let count, statistics.authenticatedRequests >= count { break }
    }
    server.stop()
    ProcessControl.exit(0)
}
