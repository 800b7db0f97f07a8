import Foundation

/// Finding the programs tests run: the real peers a test needs (chronyd, Squid, check_ntp_time, …)
/// and the package's own built products beside the test bundle — one copy for every test target.
package enum TestExecutables {
    /// Whether CI requires every real peer (`NETCLOCK_REQUIRE_PEERS=1`): then a missing one fails
    /// its tests instead of skipping them.
    package static var peersRequired: Bool {
        ProcessInfo.processInfo.environment["NETCLOCK_REQUIRE_PEERS"] == "1"
    }

    /// The absolute path of the executable `name`: the `PATH` first, then the sbin directories,
    /// where Debian installs `chronyd` and `squid` and which a non-login `PATH` may lack.
    package static func path(of name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories =
            path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        for directory in directories where !directory.isEmpty {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The directory holding the package's built products: the test bundle sits beside them
    /// (swift-testing may run from inside the `.xctest` bundle on some layouts).
    package static var productsDirectory: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var directory = bundle.deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory
    }

    /// The path of the built product `name` (e.g. `fake-ntp-server`) beside the test bundle, when
    /// the build produced it.
    package static func builtProduct(_ name: String) -> String? {
        let path = productsDirectory.appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
