import Foundation

/// The process's thread count, from the `Threads:` line of `/proc/self/status` (Linux).
enum ProcessThreads {
    /// Threads in this process now; nil where `/proc` is unavailable.
    static func count() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return nil
        }
        for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
