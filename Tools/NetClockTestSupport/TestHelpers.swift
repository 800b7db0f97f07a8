import Dispatch
import Foundation

// Threads, files and waiting for tests: one copy, used by every test target.

/// Runs `body` in a fresh directory under the system temporary directory, removed afterwards.
package func inTemporaryDirectory(_ body: (String) throws -> Void) throws {
    let path = NSTemporaryDirectory() + "netclock-store-\(UInt64.random(in: .min ... .max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
}

/// Writes `text` to `path`, replacing any file there, with mode 0600 as every state file must
/// have (whatever the umask makes of a new file).
package func writeFile(_ text: String, to path: String) throws {
    try writeFile(Array(text.utf8), to: path)
}

/// Writes `bytes` to `path`, replacing any file there, with mode 0600.
package func writeFile(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
}

/// The permission bits of the file at `path`.
package func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Runs each body on its own thread (not the two-thread cooperative pool, so they really overlap)
/// and waits for all of them.
package func runOnThreads(_ bodies: [@Sendable () -> Void]) {
    let group = DispatchGroup()
    for body in bodies {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// Waits (polling every 5 ms, up to `limit`) until `condition` holds; returns whether it did.
package func eventually(within limit: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while clock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
