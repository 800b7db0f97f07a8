import NetclockCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let status = await Netclock.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
