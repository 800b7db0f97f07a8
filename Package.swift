// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "NetworkClock",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SNTP", targets: ["SNTP"]),
        .library(name: "NetworkClock", targets: ["NetworkClock"]),
        .executable(name: "netclock", targets: ["netclock"]),
        .executable(name: "fake-ntp-server", targets: ["fake-ntp-server"]),
        .executable(name: "netclock-bench", targets: ["netclock-bench"]),
    ],
    targets: [
        .target(name: "SNTP", path: "Sources/SNTP", swiftSettings: strict),
        .target(
            name: "NetworkClock", dependencies: ["SNTP"], path: "Sources/NetworkClock",
            swiftSettings: strict),
        .target(
            name: "NetclockCLI", dependencies: ["NetworkClock"], path: "Sources/NetclockCLI",
            swiftSettings: strict),
        .executableTarget(
            name: "netclock", dependencies: ["NetclockCLI"], path: "Sources/netclock",
            swiftSettings: strict),
        .target(
            name: "LoopbackServers", dependencies: ["SNTP"], path: "Tools/LoopbackServers",
            swiftSettings: strict),
        .executableTarget(
            name: "fake-ntp-server", dependencies: ["LoopbackServers"],
            path: "Tools/fake-ntp-server", swiftSettings: strict),
        .executableTarget(
            name: "netclock-bench", dependencies: ["NetworkClock", "LoopbackServers"],
            path: "Tools/Benchmarks", swiftSettings: strict),
        .testTarget(
            name: "SNTPTests", dependencies: ["SNTP", "LoopbackServers"], path: "Tests/SNTPTests",
            swiftSettings: strict),
        .testTarget(
            name: "NetworkClockTests", dependencies: ["NetworkClock", "LoopbackServers"],
            path: "Tests/NetworkClockTests", swiftSettings: strict),
        .testTarget(
            name: "LoopbackServersTests", dependencies: ["LoopbackServers", "SNTP"],
            path: "Tests/LoopbackServersTests", swiftSettings: strict),
        .testTarget(
            name: "netclockTests", dependencies: ["NetclockCLI", "NetworkClock", "LoopbackServers"],
            path: "Tests/netclockTests", swiftSettings: strict),
    ]
)
