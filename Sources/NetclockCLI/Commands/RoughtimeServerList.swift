import NetClockPlatform
import NetworkClock
import Roughtime

/// The Roughtime servers of `--roughtime FILE` (the ecosystem JSON that Cloudflare publishes and
/// `roughly` reads), and the `--malfeasance-report` file the proof of a liar is written to.
enum RoughtimeServerList {
    /// The largest server list read.
    static let maximumFileSize = 1 << 20

    /// Every usable server of every file, in order; entries that cannot be used (an unknown key
    /// type, no UDP address) are skipped with a note on `console`.
    /// Why a server list gave no servers.
    struct Unusable: Error {
        var reason: String
    }

    /// - Returns: the servers, or why a file gave none.
    static func load(_ paths: [String], console: Console) -> Result<[RoughtimeServer], Unusable> {
        var servers: [RoughtimeServer] = []
        for path in paths {
            let bytes: [UInt8]
            switch FileSystem.readFile(atPath: path, limit: maximumFileSize) {
            case .success(let content): bytes = content
            case .failure(let failure):
                return .failure(Unusable(reason: "cannot read the Roughtime server list: \(failure.reason)"))
            }
            let ecosystem: RoughtimeEcosystem
            do {
                ecosystem = try RoughtimeEcosystem(json: bytes)
            } catch {
                return .failure(
                    Unusable(reason: "the Roughtime server list \(path) is unusable: \(error.description)"))
            }
            for skipped in ecosystem.skipped {
                console.err("netclock: \(path): Roughtime server \(skipped) (skipped)")
            }
            guard !ecosystem.servers.isEmpty else {
                return .failure(Unusable(reason: "the Roughtime server list \(path) names no usable server"))
            }
            servers += ecosystem.servers
        }
        return .success(servers)
    }

    /// Writes `report` (JSON) to `path` atomically, mode 0644 (a proof meant to be shared).
    /// - Returns: why it could not be written.
    static func write(_ report: String, to path: String) -> String? {
        if let failure = FileSystem.writeAtomically(Array(report.utf8) + [0x0A], toPath: path, mode: 0o644) {
            return failure.reason
        }
        return nil
    }
}
