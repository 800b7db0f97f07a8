// fake-roughtime-server: the loopback fake Roughtime server as a command, for demos, scripts and
// the interoperability checks with `roughly query`. All behaviour lives in LoopbackServers
// (FakeRoughtimeServer and its CommandLineOptions); this file wires it to the process.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import LoopbackServers
import NetClockPlatform
import NetClockTestSupport

let options: FakeRoughtimeServer.CommandLineOptions
do {
    options = try FakeRoughtimeServer.CommandLineOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    ProcessControl.writeError("fake-roughtime-server: \(error)")
    ProcessControl.writeError("Run 'fake-roughtime-server --help' for usage.")
    ProcessControl.exit(2)
}
if options.showHelp {
    print(FakeRoughtimeServer.CommandLineOptions.help)
    ProcessControl.exit(0)
}

// Block SIGINT and SIGTERM before the server thread starts, so every thread inherits the mask.
ProcessControl.blockStopSignals()
let server: FakeRoughtimeServer
do {
    server = try FakeRoughtimeServer(configuration: options.configuration)
} catch {
    ProcessControl.writeError("fake-roughtime-server: \(error.reason)")
    ProcessControl.exit(1)
}
print("listening on \(server.hostAndPort)")
print("public key \(Data(server.publicKey).base64EncodedString())")
ProcessControl.flushStandardOutput()

var last = server.statistics
while !ProcessControl.waitForStopSignal(timeout: .milliseconds(20)) {
    let statistics = server.statistics
    if options.verbose, statistics != last {
        ProcessControl.writeError(
            "\(statistics.requests) requests, \(statistics.replies) replies, \(statistics.dropped) dropped"
                + (statistics.lastDropReason.map { " (last: \($0))" } ?? "")
                + ", \(statistics.batches) batches")
    }
    last = statistics
}
server.stop()
ProcessControl.exit(0)
