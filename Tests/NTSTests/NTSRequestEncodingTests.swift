import SNTP
import Testing
import TimeValues

@testable import NTS

/// The request written in place equals the request assembled from its fields: every length of
/// Unique Identifier, cookie, nonce and ciphertext padding, and every placeholder count.
struct NTSRequestEncodingTests {
    @Test("in-place request bytes equal NTSPacket.encode of the same fields")
    func inPlaceEqualsFieldByField() throws {
        let header = NTPPacket.clientRequest(nonce: NTPTimestamp(rawValue: 0x0102_0304_0506_0708))
        var generator = SystemRandomNumberGenerator()
        func random(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        var checked = 0
        for uidLength in [32, 35, 256] {
            for cookieLength in [1, 11, 12, 13, 100, 1024] {
                for placeholders in [0, 1, 7] {
                    for nonceLength in [1, 15, 16, 17, 1024] {
                        for ciphertextLength in [16, 17, 19, 120] {
                            let uid = random(uidLength)
                            let cookie = random(cookieLength)
                            let nonce = random(nonceLength)
                            let ciphertext = random(ciphertextLength)
                            let fields =
                                [
                                    try NTPExtensionField(type: .uniqueIdentifier, body: uid),
                                    try NTPExtensionField(type: .cookie, body: cookie),
                                ]
                                + Array(
                                    repeating: try NTPExtensionField(
                                        type: .cookiePlaceholder,
                                        body: Array(repeating: 0, count: cookieLength)),
                                    count: placeholders)
                            let expectedAD = NTSPacket.encode(header: header, fields: fields)
                            let smallestAuthenticator = 24 + max(16, (nonceLength + 3) & ~3)
                            if expectedAD.count + smallestAuthenticator > NTSPacket.maximumSize {
                                #expect(throws: NTSError.self) {
                                    try NTSRequest(
                                        header: header, uniqueIdentifier: uid, cookie: cookie,
                                        placeholderCount: placeholders, nonce: nonce)
                                }
                                continue
                            }
                            let request = try NTSRequest(
                                header: header, uniqueIdentifier: uid, cookie: cookie,
                                placeholderCount: placeholders, nonce: nonce)
                            #expect(request.associatedData == expectedAD)
                            let expected = NTSPacket.encode(
                                header: header,
                                fields: fields + [
                                    try NTSAuthenticator(nonce: nonce, ciphertext: ciphertext).field()
                                ])
                            #expect(
                                try request.encoded(ciphertext: ciphertext) == expected,
                                "uid \(uidLength), cookie \(cookieLength), \(placeholders) placeholders, nonce \(nonceLength), ciphertext \(ciphertextLength)"
                            )
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 3 * 6 * 3 * 5 * 4 * 9 / 10)
    }
}
