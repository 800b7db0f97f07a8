import Foundation

/// libfaketime's preload library, for running a program (the `openssl` command, chronyd, the CLI)
/// with a shifted wall clock, as TESTING.md describes ("A wrong clock against certificates").
///
/// `LD_PRELOAD` of the library with `FAKETIME` rather than the `faketime` wrapper: killing the
/// wrapper can leave files in `/dev/shm`. ``environment(_:)`` always leaves the monotonic clocks
/// (CLOCK_MONOTONIC, CLOCK_BOOTTIME) alone, the realistic case of a wrong date: the anchored
/// clock runs on CLOCK_BOOTTIME and must keep its meaning.
package enum LibFaketime {
    /// The library's file name.
    package static let libraryName = "libfaketime.so.1"

    /// The library, wherever this machine has it: Debian installs it under the multiarch directory,
    /// which differs by architecture (`/usr/lib/x86_64-linux-gnu/faketime/`,
    /// `/usr/lib/aarch64-linux-gnu/faketime/`, …); other layouts use `/usr/lib/faketime/`.
    package static let path: String? = {
        let files = FileManager.default
        var candidates: [String] = []
        for lib in ["/usr/lib", "/usr/lib64", "/usr/local/lib"] {
            let subdirectories = (try? files.contentsOfDirectory(atPath: lib)) ?? []
            candidates += subdirectories.sorted().map { "\(lib)/\($0)/faketime/\(libraryName)" }
            candidates.append("\(lib)/faketime/\(libraryName)")
        }
        return candidates.first { files.fileExists(atPath: $0) }
    }()

    /// Why a test needing the library skips, or fails under `NETCLOCK_REQUIRE_PEERS=1`.
    package static let missingReason =
        "libfaketime.so.1 is not installed (apt-get install -y faketime): skipped; with NETCLOCK_REQUIRE_PEERS=1 this fails"

    /// The library, or a failure naming the package to install.
    package static func require() throws -> String {
        guard let path else { throw TimeShiftedCertificates.Failure(description: missingReason) }
        return path
    }

    /// The variables that make a program's wall clock `fakeTime` (libfaketime's `FAKETIME`: `-400d`,
    /// `+20d`, or `@1970-01-02 00:00:00`, which starts the clock at that instant when the program
    /// starts and lets it run), leaving the monotonic clocks alone. `TZ=UTC` makes an absolute
    /// `@` date mean UTC whatever the machine's zone.
    package static func environment(_ fakeTime: String, library: String) -> [String: String] {
        [
            "LD_PRELOAD": library, "FAKETIME": fakeTime, "FAKETIME_DONT_FAKE_MONOTONIC": "1", "TZ": "UTC",
        ]
    }
}
