// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6)
]

// Targets are cut by effect, in layers (Architecture.md in the NetworkClock DocC catalog):
//   values:          TimeValues (time values and their text, the one interval type and drift rule,
//                    the clock protocols; no system call)
//   platform:        NetClockPlatform (every libc call a client makes: sockets and the datagram
//                    loop, the system's clocks, the pool and its waiter; server names);
//                    NetClockTLS (every OpenSSL call, through the COpenSSL system library)
//   protocol cores:  SNTP (wire, the burst core, sample math); NTS / NTSClient
//                    (a transform of SNTP's packets); Roughtime (its own core); HTTPTime (the HTTP(S)
//                    time client and its parsers)
//   clock:           ClockCore (the anchored clock: anchor, frequency tracking, holdover, leap
//                    schedule, the time base it reads, the kernel discipline's state)
//   facade:          NetworkClock (sync engine, persistence, the system clock, facade)
//   CLI:             NetclockCLI / netclock
// Servers and everything only tests need live under Tools/ (NetClockTestSupport, LoopbackServers,
// TimeDoubles).
// Only SNTP and NetworkClock are public products (Roughtime's client is reached through
// NetworkClock; its module has no API of its own worth a product); everything shared between our
// own targets is `package`.
let package = Package(
    name: "NetworkClock",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SNTP", targets: ["SNTP"]),
        .library(name: "NetworkClock", targets: ["NetworkClock"]),
        .executable(name: "netclock", targets: ["netclock"]),
        .executable(name: "fake-ntp-server", targets: ["fake-ntp-server"]),
        .executable(name: "netclock-bench", targets: ["netclock-bench"]),
        .executable(name: "fake-roughtime-server", targets: ["fake-roughtime-server"]),
        .executable(name: "netclock-soak", targets: ["netclock-soak"]),
    ],
    targets: [
        // The header behind `adjtimex` (the Glibc module map lacks <sys/timex.h>) and the vDSO
        // clock lookup; used only by NetClockPlatform.
        .target(name: "CKernelClock", path: "Sources/CKernelClock"),
        // The values every layer builds on, with no system call: the time values (UnixTime,
        // MonotonicInstant, TimeMapping, ISO 8601, Duration's text), the one interval type and drift
        // rule (TrueTimeInterval, Duration.drift(atPPM:)), Marzullo's intersection and the clock
        // protocols that tests inject.
        .target(name: "TimeValues", path: "Sources/TimeValues", swiftSettings: strict),
        .target(
            name: "NetClockPlatform", dependencies: ["CKernelClock", "TimeValues"],
            path: "Sources/NetClockPlatform", swiftSettings: strict),
        // OpenSSL 3 from the system (`libssl-dev`): headers and a shim for the macros Swift cannot
        // import. Among shipping modules only NetClockTLS imports it.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        // The only OpenSSL user the products link: TLS client connections (and the engine a test
        // server's context runs on), certificate times, exporter keys, AES-SIV, SHA-2, Ed25519.
        .target(
            name: "NetClockTLS", dependencies: ["COpenSSL", "NetClockPlatform"], path: "Sources/NetClockTLS",
            swiftSettings: strict),
        .target(
            name: "SNTP", dependencies: ["NetClockPlatform", "TimeValues"], path: "Sources/SNTP",
            swiftSettings: strict),
        // Pure NTS (RFC 8915) wire codecs: NTS-KE records, NTS extension fields for NTPv4.
        .target(
            name: "NTS", dependencies: ["SNTP", "TimeValues"], path: "Sources/NTS",
            swiftSettings: strict),
        // The NTS client (RFC 8915): NTS-KE over NetClockTLS, the keys and cookies of an
        // association, and the protection of NTP requests and replies.
        .target(
            name: "NTSClient",
            dependencies: ["NTS", "SNTP", "TimeValues", "NetClockTLS", "NetClockPlatform"],
            path: "Sources/NTSClient", swiftSettings: strict),
        // Roughtime (RFC 10049, the drafts from 10 on, Google-Roughtime): tagged messages, Merkle
        // proofs, delegation and signature checks, the exchange core, chained multi-server queries
        // and malfeasance reports.
        .target(
            name: "Roughtime", dependencies: ["TimeValues", "NetClockTLS", "NetClockPlatform"],
            path: "Sources/Roughtime", swiftSettings: strict),
        // The HTTP(S) time client (for networks where NTP's UDP is blocked), beside SNTP and NTS:
        // `Parsing/` total parsers for HTTP dates, response heads and timestamp headers (what the
        // fuzz targets link), `Client/` its own HTTP/1.1 client over TCP and NetClockTLS, the
        // Date-header refiner and the measurement.
        .target(
            name: "HTTPTime", dependencies: ["TimeValues", "NetClockPlatform", "NetClockTLS"],
            path: "Sources/HTTPTime", swiftSettings: strict),
        // The clock layer: the anchored clock and everything it keeps (anchor, frequency tracker,
        // holdover aging, leap schedule, time base readers), without I/O above the platform and
        // without the facade's types (NetworkClock names its public types through typealiases).
        .target(
            name: "ClockCore", dependencies: ["TimeValues", "NetClockPlatform"], path: "Sources/ClockCore",
            swiftSettings: strict),
        .target(
            name: "NetworkClock",
            dependencies: [
                "ClockCore", "SNTP", "TimeValues", "HTTPTime", "NetClockPlatform", "NetClockTLS", "NTSClient",
                "Roughtime",
            ],
            path: "Sources/NetworkClock", swiftSettings: strict),
        // The CLI reaches the machine and the protocols through the facade only; it names SNTP's
        // public sample type and uses the time values' operators, which Swift finds only in a
        // module imported directly (Architecture.md, "The command line through the facade").
        .target(
            name: "NetclockCLI",
            dependencies: ["NetworkClock", "SNTP", "TimeValues"],
            path: "Sources/NetclockCLI",
            swiftSettings: strict),
        .executableTarget(
            name: "netclock", dependencies: ["NetclockCLI"], path: "Sources/netclock",
            swiftSettings: strict),
        // The server side, for tests and tools only (nothing the library products link): listeners,
        // UDP server sockets, wake channels, joinable threads, process control, and the TLS server
        // context (which is why it may import COpenSSL; the shipping modules reach OpenSSL only
        // through NetClockTLS).
        .target(
            name: "NetClockTestSupport", dependencies: ["NetClockPlatform", "NetClockTLS", "COpenSSL"],
            path: "Tools/NetClockTestSupport", swiftSettings: strict),
        .target(
            name: "LoopbackServers",
            dependencies: [
                "SNTP", "TimeValues", "NetClockPlatform", "NetClockTLS", "NTS", "Roughtime",
                "NetClockTestSupport",
            ],
            path: "Tools/LoopbackServers", swiftSettings: strict),
        // What only tests import beside Testing itself: the reasons loopback tests are skipped.
        .target(
            name: "LoopbackTestSupport", dependencies: ["LoopbackServers"], path: "Tools/LoopbackTestSupport",
            swiftSettings: strict),
        // The one set of test doubles, for every test target and the benchmarks, one per file: the
        // manual datagram driver for protocol cores, simulated timelines and machines, manual and
        // scripted clocks. It needs nothing above ClockCore and does not import Testing
        // (Architecture.md).
        .target(
            name: "TimeDoubles", dependencies: ["TimeValues", "ClockCore", "NetClockPlatform"],
            path: "Tools/TimeDoubles", swiftSettings: strict),
        // The fleet simulator (issue 43): a sampled fleet of apps on simulated machines, each policy
        // on the same events, the demand-driven one on the library's own clock and schedule
        // (FleetSimulation.md). `netclock-bench fleet` runs it; a test runs a small sample.
        .target(
            name: "FleetSimulation",
            dependencies: [
                "NetworkClock", "ClockCore", "SNTP", "TimeValues", "NetClockPlatform", "TimeDoubles",
                "LoopbackServers",
            ],
            path: "Tools/FleetSimulation", swiftSettings: strict),
        // A Swift Testing trait for suites whose truth is the system wall clock (Testing.md).
        .target(
            name: "WallClockReference", dependencies: ["NetClockPlatform"], path: "Tools/WallClockReference",
            swiftSettings: strict),
        .executableTarget(
            name: "fake-ntp-server",
            dependencies: [
                "LoopbackServers", "SNTP", "TimeValues", "NetClockPlatform", "NetClockTestSupport",
            ],
            path: "Tools/fake-ntp-server", swiftSettings: strict),
        .executableTarget(
            name: "fake-roughtime-server",
            dependencies: ["LoopbackServers", "NetClockPlatform", "NetClockTestSupport"],
            path: "Tools/fake-roughtime-server", swiftSettings: strict),
        .executableTarget(
            name: "netclock-bench",
            dependencies: [
                "NetworkClock", "ClockCore", "SNTP", "TimeValues", "HTTPTime", "NetClockPlatform",
                "LoopbackServers", "NTSClient",
                "NetClockTLS", "Roughtime", "NetClockTestSupport", "TimeDoubles", "FleetSimulation",
            ],
            path: "Tools/Benchmarks", swiftSettings: strict),
        // The release-mode soak: the CLI and the library's refresh for many rounds over every
        // source kind against loopback servers (CI runs it; Testing.md, "Soak").
        .executableTarget(
            name: "netclock-soak",
            dependencies: [
                "NetworkClock", "SNTP", "TimeValues", "LoopbackServers", "NetClockPlatform", "Roughtime",
            ],
            path: "Tools/Soak", swiftSettings: strict),
        .testTarget(
            name: "SNTPTests",
            dependencies: [
                "SNTP", "TimeValues", "NetClockPlatform", "LoopbackServers", "LoopbackTestSupport",
                "WallClockReference", "TimeDoubles",
            ],
            path: "Tests/SNTPTests",
            swiftSettings: strict),
        .testTarget(
            name: "NTSTests", dependencies: ["NTS", "SNTP", "TimeValues"], path: "Tests/NTSTests",
            swiftSettings: strict),
        .testTarget(
            name: "NTSClientTests",
            dependencies: [
                "NTSClient", "NTS", "SNTP", "TimeValues", "NetClockTLS", "NetClockPlatform",
                "LoopbackServers",
                "WallClockReference", "TimeDoubles",
            ],
            path: "Tests/NTSClientTests", swiftSettings: strict),
        .testTarget(
            name: "NetClockPlatformTests",
            dependencies: ["NetClockPlatform", "LoopbackServers", "NetClockTestSupport"],
            path: "Tests/NetClockPlatformTests", swiftSettings: strict),
        .testTarget(
            name: "HTTPTimeTests",
            dependencies: ["HTTPTime", "TimeValues", "NetClockTLS", "LoopbackServers"],
            path: "Tests/HTTPTimeTests", swiftSettings: strict),
        // The clock's own tests (the anchored clock, holdover, leap seconds, floors, namespaces, the
        // system-clock decision), on the doubles' simulated machines; they build without the facade.
        .testTarget(
            name: "ClockCoreTests",
            dependencies: [
                "ClockCore", "TimeValues", "NetClockPlatform", "LoopbackServers", "NetClockTestSupport",
                "TimeDoubles",
            ],
            path: "Tests/ClockCoreTests", swiftSettings: strict),
        .testTarget(
            name: "NetworkClockTests",
            dependencies: [
                "NetworkClock", "ClockCore", "SNTP", "TimeValues", "HTTPTime", "NetClockPlatform",
                "NetClockTLS", "LoopbackServers", "LoopbackTestSupport", "WallClockReference",
                "NTSClient", "Roughtime", "NetClockTestSupport", "TimeDoubles", "FleetSimulation",
            ],
            path: "Tests/NetworkClockTests", swiftSettings: strict),
        .testTarget(
            name: "NetClockTLSTests",
            dependencies: ["NetClockTLS", "NetClockPlatform", "LoopbackServers", "NetClockTestSupport"],
            path: "Tests/NetClockTLSTests", swiftSettings: strict),
        .testTarget(
            name: "RoughtimeTests",
            dependencies: [
                "Roughtime", "SNTP", "TimeValues", "NetClockTLS", "NetClockPlatform", "LoopbackServers",
                "WallClockReference",
                "NetClockTestSupport",
            ],
            path: "Tests/RoughtimeTests", swiftSettings: strict),
        .testTarget(
            name: "LoopbackServersTests",
            dependencies: [
                "LoopbackServers", "LoopbackTestSupport", "WallClockReference", "SNTP", "TimeValues",
                "NetClockPlatform", "NTS",
                "NetClockTLS",
                "NetClockTestSupport", "TimeDoubles",
            ],
            path: "Tests/LoopbackServersTests", swiftSettings: strict),
        .testTarget(
            name: "netclockTests",
            dependencies: [
                "NetclockCLI", "NetworkClock", "ClockCore", "SNTP", "TimeValues", "HTTPTime",
                "NetClockPlatform",
                "LoopbackServers", "LoopbackTestSupport", "WallClockReference",
                "NetClockTestSupport",
            ],
            path: "Tests/netclockTests", swiftSettings: strict),
    ]
)

// CI's ThreadSanitizer step runs a subset of the suite (.ci/run): NETCLOCK_TEST_TARGETS, a comma-
// separated list of test targets, keeps only those and the targets they depend on, so that the
// sanitized build compiles what the subset runs, not the whole suite. Unset, the package is as
// declared above.
if let names = Context.environment["NETCLOCK_TEST_TARGETS"] {
    var kept = Set(names.split(separator: ",").map(String.init))
    var added = kept
    while !added.isEmpty {
        let dependencies = package.targets.filter { added.contains($0.name) }.flatMap(\.dependencies)
        added = Set(
            dependencies.compactMap { dependency -> String? in
                switch dependency {
                case .targetItem(let name, _), .byNameItem(let name, _): name
                default: nil
                }
            }
        ).subtracting(kept)
        kept.formUnion(added)
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let library = (product as? Product.Library)?.targets
        let targets = library ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
}
