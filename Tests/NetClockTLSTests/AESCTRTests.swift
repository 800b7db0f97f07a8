import Foundation
import LoopbackServers
import Testing

@testable import NetClockTLS

/// AES-SIV's counter mode, made here from `AES-128-ECB` blocks, against the `openssl enc
/// -aes-128-ctr` command (OpenSSL's own counter mode, which steps the whole 128-bit counter):
/// lengths across the 512-byte chunks and counters that carry past 2⁶⁴ and wrap past 2¹²⁸.
@Suite(.enabled(if: TestCertificates.runnable, "needs the openssl command"))
struct AESCTRTests {
    /// What `openssl enc -aes-128-ctr` makes of `input` under `key` from counter block `counter`.
    static func openssl(key: [UInt8], counter: [UInt8], _ input: [UInt8]) throws -> [UInt8] {
        let openssl = try #require(TestCertificates.opensslPath, "openssl is not installed")
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["enc", "-aes-128-ctr", "-K", hex(key), "-iv", hex(counter), "-nosalt"]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl enc exited \(process.terminationStatus)")
        return [UInt8](output)
    }

    @Test(arguments: [
        (SIVBlock(high: 0x0123_4567_89ab_cdef, low: 0x0011_2233_4455_6677), [1, 15, 16, 17, 104, 512, 1100]),
        (SIVBlock(high: 5, low: 0xffff_ffff_ffff_fffe), [48, 513]),
        (SIVBlock(high: .max, low: 0xffff_ffff_ffff_ffff), [16, 64]),
    ])
    func sameKeyStreamAsOpenSSL(counter: SIVBlock, lengths: [Int]) throws {
        var generator = SystemRandomNumberGenerator()
        let key = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let ctr = try AESCTR(key: key)
        for length in lengths {
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var output = [UInt8](repeating: 0, count: length)
            var failure: AESSIVError?
            input.withUnsafeBytes { text in
                output.withUnsafeMutableBytes { out in
                    do throws(AESSIVError) {
                        try ctr.apply(counter: counter, text, to: out)
                    } catch {
                        failure = error
                    }
                }
            }
            #expect(failure == nil)
            #expect(output == (try Self.openssl(key: key, counter: counter.array, input)), "\(length) bytes")
        }
    }
}
