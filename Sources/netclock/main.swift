#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetclockCLI

#if canImport(Glibc)
    import Glibc  // exit
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command-line arguments. Under `LD_PRELOAD=libfaketime.so.1` the Swift runtime on Linux sees
/// no arguments at all (measured with libfaketime 0.9.10), so fall back to the kernel's copy.
func commandLineArguments() -> [String] {
    if CommandLine.argc > 0 { return CommandLine.arguments }
    guard let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return [] }
    return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
        String(decoding: $0, as: UTF8.self)
    }
}

let arguments = Array(commandLineArguments().dropFirst())
// `now`, `--version` and the help run here, before anything awaits: no task, no executor thread.
if let status = Netclock.runSynchronously(arguments) { exit(status) }
let status = await Netclock.run(arguments)
exit(status)
