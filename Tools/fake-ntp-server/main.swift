// fake-ntp-server: the loopback fake SNTP server as a command, for demos, scripts and manual tests.
// All behaviour lives in LoopbackServers (FakeNTPServer and its CommandLineOptions); this file only
// wires it to the process: arguments, the `listening on` line, signals and exit status.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import LoopbackServers

/// Writes a line to stderr (unbuffered, with `write`: the C `stderr` global is not concurrency-safe).
func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

let options: FakeNTPServer.CommandLineOptions
do {
    options = try FakeNTPServer.CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printError("fake-ntp-server: \(error.message)")
    printError("Run 'fake-ntp-server --help' for usage.")
    exit(2)
}

switch options.action {
case .showHelp:
    print(FakeNTPServer.CommandLineOptions.help)
    exit(0)
case .showVersion:
    print(FakeNTPServer.CommandLineOptions.version)
    exit(0)
case .serve:
    break
}

// Block SIGINT and SIGTERM before the server thread starts, so every thread inherits the mask and the
// signals stay pending until the loop below takes them with sigtimedwait: no handler, no global state.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

let server: FakeNTPServer
do {
    server = try FakeNTPServer(configuration: options.configuration)
} catch {
    printError("fake-ntp-server: \(error.reason)")
    exit(1)
}

print("listening on \(server.address)")
fflush(nil)  // flushes stdout, so a script reading the pipe sees the line now

var reported = 0  // log entries already printed (verbose) or counted
var served = 0
while true {
    var tick = timespec(tv_sec: 0, tv_nsec: 20_000_000)
    let signal = sigtimedwait(&stopSignals, nil, &tick)
    if signal == SIGINT || signal == SIGTERM { break }
    // Report finished requests in order; one still in flight holds back those after it.
    for entry in server.requests(from: reported) {
        guard entry.isComplete else { break }
        if options.verbose { printError(entry.summary) }
        reported += 1
        served += 1
    }
    if let count = options.count, served >= count { break }
}
server.stop()
exit(0)
