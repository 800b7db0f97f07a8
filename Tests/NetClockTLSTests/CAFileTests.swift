import Foundation
import Testing

@testable import NetClockTLS

/// A CA file that is not a regular file (a FIFO nobody writes, a directory) is refused before
/// OpenSSL opens it: OpenSSL's open blocks, so a FIFO there would hang the handshake for ever.
@Suite struct CAFileTests {
    @Test(arguments: ["fifo", "directory"])
    func aCAFileThatIsNotARegularFileIsRefusedAtOnce(kind: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "netclock-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ca.pem").path
        if kind == "fifo" {
            #expect(mkfifo(path, 0o600) == 0)
        } else {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let started = ContinuousClock.now
        let error = try #require(throws: TLSError.self) {
            _ = try TLSContext.client(TLSClientConfiguration(trustRoots: .caFile(path)))
        }
        #expect(error.code == .configuration)
        #expect(error.reason.contains("not a regular file"), "\(error)")
        // The property is that nothing waits: a blocked open would never return.
        #expect(ContinuousClock.now - started < .seconds(1))
    }
}
