import Foundation
import LoopbackServers
import Testing

@testable import NetClockTLS

/// AES-128-CMAC on one CBC context: RFC 4493's known answers, long messages and S2V's xorend
/// against OpenSSL's CMAC, and many messages in a row on one key (the chaining value carried from
/// message to message must never leak into a tag).
@Suite struct AESCMACTests {
    /// RFC 4493 §4: the key and the 64-byte message whose prefixes of 0, 16, 40 and 64 bytes are
    /// the examples.
    static let key = hex("2b7e151628aed2a6abf7158809cf4f3c")
    static let message = hex(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
    static let examples: [(length: Int, tag: [UInt8])] = [
        (0, hex("bb1d6929e95937287fa37d129b756746")),
        (16, hex("070a16b46b4d4144f79bdd9dd04a287c")),
        (40, hex("dfa66747de9ae63030ca32611497c827")),
        (64, hex("51f0bebf7e3b9d92fc49741779363cfe")),
    ]

    @Test("the RFC 4493 examples, each message on a fresh key and all in a row on one")
    func knownAnswers() throws {
        let shared = try AESCMAC(key: Self.key)
        for _ in 0..<3 {
            for (length, expected) in Self.examples {
                let message = Array(Self.message.prefix(length))
                let fresh = try AESCMAC(key: Self.key)
                #expect(
                    message.withUnsafeBytes { fresh.tag($0) }?.array == expected, "\(length) bytes, fresh")
                #expect(
                    message.withUnsafeBytes { shared.tag($0) }?.array == expected, "\(length) bytes, shared")
            }
        }
    }

    @Test(
        "messages across the 512-byte chunks against `openssl mac CMAC`, one key for all; S2V's xorend as the changed message",
        .enabled(if: TestCertificates.runnable, "needs the openssl command"))
    func longMessagesAndXorEnd() throws {
        let cmac = try AESCMAC(key: Self.key)
        var generator = SystemRandomNumberGenerator()
        let end = SIVBlock(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        for length in [0, 1, 15, 16, 17, 31, 32, 33, 40, 64, 500, 511, 512, 513, 520, 600, 1024, 1100] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let tag = try #require(message.withUnsafeBytes { cmac.tag($0) })
            #expect(tag.array == (try Self.openssl(message)), "\(length) bytes")
            guard length >= 16 else {
                #expect(message.withUnsafeBytes { cmac.tag($0, xoringEndWith: end) } == nil)
                continue
            }
            var changed = message
            end.withUnsafeBytes { end in
                for index in 0..<16 { changed[length - 16 + index] ^= end[index] }
            }
            let xorEnd = try #require(message.withUnsafeBytes { cmac.tag($0, xoringEndWith: end) })
            #expect(xorEnd.array == (try Self.openssl(changed)), "xorend, \(length) bytes")
        }
    }

    /// What `openssl mac -cipher AES-128-CBC CMAC` makes of `message` under ``key``.
    static func openssl(_ message: [UInt8]) throws -> [UInt8] {
        let openssl = try #require(TestCertificates.opensslPath, "openssl is not installed")
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("cmac-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: input) }
        try Data(message).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "mac", "-cipher", "AES-128-CBC", "-macopt",
            "hexkey:" + key.map { String(format: "%02x", $0) }.joined(),
            "-in", input.path, "CMAC",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl mac exited \(process.terminationStatus)")
        return hex(text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
    }

    /// The tag of `message` on a fresh key (no chaining value carried over).
    static func oneShot(_ message: UnsafeRawBufferPointer) -> [UInt8]? {
        (try? AESCMAC(key: key))?.tag(message)?.array
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
