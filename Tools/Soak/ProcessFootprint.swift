import Foundation

/// What a running process holds, read from `/proc/PID`: resident memory, open descriptors and
/// threads. A leak across rounds shows as growth between the first and the last reading.
struct ProcessFootprint: Sendable {
    /// Resident set size, in kilobytes (`VmRSS`).
    var residentKilobytes: Int
    /// Open file descriptors (entries of `/proc/PID/fd`).
    var descriptors: Int
    /// Threads (`Threads`).
    var threads: Int

    /// The footprint of `pid` now; nil once it has exited.
    static func read(pid: Int32) -> ProcessFootprint? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count,
            let resident = field("VmRSS:", in: status), let threads = field("Threads:", in: status)
        else { return nil }
        return ProcessFootprint(residentKilobytes: resident, descriptors: descriptors, threads: threads)
    }

    /// The first number on the line of `/proc/PID/status` that starts with `name`.
    private static func field(_ name: String, in status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else {
            return nil
        }
        return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap {
            Int($0)
        }
    }
}
