import NetClockPlatform
import Roughtime

/// Roughtime servers read from ecosystem files (the JSON that Cloudflare publishes and `roughly`
/// reads), as `--roughtime FILE` names them.
package struct RoughtimeServerList: Sendable {
    /// The largest file read.
    package static let maximumFileSize = 1 << 20

    /// Why a file gave no servers.
    package struct Unusable: Error, Sendable {
        /// What is wrong, naming the file.
        package var reason: String
    }

    /// Every usable server of every file, in order.
    package var servers: [RoughtimeServer]
    /// The entries that could not be used (an unknown key type, no UDP address), as
    /// `FILE: Roughtime server NAME (why)`.
    package var skipped: [String]

    /// Reads every file of `paths`; fails when one cannot be read, is not an ecosystem list, or
    /// names no usable server.
    package static func load(_ paths: [String]) -> Result<RoughtimeServerList, Unusable> {
        var list = RoughtimeServerList(servers: [], skipped: [])
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
            list.skipped += ecosystem.skipped.map { "\(path): Roughtime server \($0) (skipped)" }
            guard !ecosystem.servers.isEmpty else {
                return .failure(Unusable(reason: "the Roughtime server list \(path) names no usable server"))
            }
            list.servers += ecosystem.servers
        }
        return .success(list)
    }
}
