import Testing

@testable import NTS

/// NTS-KE records (RFC 8915 §4): the request's exact bytes, the incremental response parser, the
/// server-side encoder and the exporter context.
struct NTSKETests {
    /// A chronyd-like response: next protocol, AEAD, port, eight 100-byte cookies, end.
    static let chronydLike: [UInt8] = {
        var bytes: [UInt8] = [0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x80, 0x04, 0x00, 0x02, 0x00, 0x0f]
        bytes += [0x00, 0x07, 0x00, 0x02, 0x2b, 0x73]  // port 11123
        for index in 0..<8 {
            bytes += [0x00, 0x05, 0x00, 100] + (0..<100).map { UInt8(truncatingIfNeeded: $0 &+ index) }
        }
        return bytes + [0x80, 0x00, 0x00, 0x00]
    }()

    /// What ``chronydLike`` parses to.
    static let expected = NTSKEResponse(
        cookies: (0..<8).map { index in (0..<100).map { UInt8(truncatingIfNeeded: $0 &+ index) } },
        port: 11123)

    /// Next Protocol NTPv4, critical.
    static let nextProtocolNTP: [UInt8] = [0x80, 0x01, 0x00, 0x02, 0x00, 0x00]
    /// AEAD 15, critical.
    static let aead15: [UInt8] = [0x80, 0x04, 0x00, 0x02, 0x00, 0x0f]
    /// A 4-byte cookie.
    static let cookie: [UInt8] = [0x00, 0x05, 0x00, 0x04, 1, 2, 3, 4]
    /// End of Message, critical.
    static let end: [UInt8] = [0x80, 0x00, 0x00, 0x00]

    /// Parses `bytes` as one read followed by the end of the stream.
    static func parse(_ bytes: [UInt8]) throws(NTSError) -> NTSKEResponse {
        var parser = NTSKEResponseParser()
        _ = try parser.consume(bytes)
        return try parser.finish()
    }

    /// The error code of parsing `bytes`, or `nil` when they parse.
    static func code(_ bytes: [UInt8]) -> NTSError.Code? {
        do {
            _ = try parse(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    /// The request is byte for byte what chronyd accepted (TESTING.md, "NTS").
    @Test func requestBytesMatchTheMeasuredOnes() {
        #expect(
            NTSKERequest.encoded() == [
                0x80, 0x01, 0x00, 0x02, 0x00, 0x00, 0x80, 0x04, 0x00, 0x02, 0x00, 0x0f, 0x80, 0x00, 0x00,
                0x00,
            ])
    }

    /// The exporter label and the C2S/S2C contexts of RFC 8915 §5.1.
    @Test func exporterContextsAndLabel() {
        #expect(NTSKeyExport.context(direction: .clientToServer) == [0, 0, 0, 0x0f, 0])
        #expect(NTSKeyExport.context(direction: .serverToClient) == [0, 0, 0, 0x0f, 1])
        #expect(NTSKeyExport.label == "EXPORTER-network-time-security")
        #expect(NTSKeyExport.label.utf8.count == 30)
    }

    /// A chronyd-like response read in one piece.
    @Test func chronydLikeResponseInOneChunk() throws {
        #expect(try Self.parse(Self.chronydLike) == Self.expected)
    }

    /// The same response split into two reads at every possible point.
    @Test func chronydLikeResponseInEveryTwoChunkSplit() throws {
        let bytes = Self.chronydLike
        for split in 0...bytes.count {
            var parser = NTSKEResponseParser()
            let first = try parser.consume(bytes[..<split])
            #expect(
                first == (split == bytes.count ? .complete(Self.expected) : .needMoreBytes), "split \(split)")
            let second = try parser.consume(bytes[split...])
            #expect(second == .complete(Self.expected), "split \(split)")
        }
    }

    /// The same response one byte per read.
    @Test func chronydLikeResponseByteByByte() throws {
        var parser = NTSKEResponseParser()
        for (index, byte) in Self.chronydLike.enumerated() {
            let progress = try parser.consume([byte])
            #expect(
                progress == (index == Self.chronydLike.count - 1 ? .complete(Self.expected) : .needMoreBytes))
        }
        #expect(try parser.finish() == Self.expected)
    }

    /// What the server-side encoder writes parses back equal.
    @Test func serverEncoderRoundTrips() throws {
        let response = NTSKEResponse(
            cookies: [[1, 2, 3], Array(repeating: 9, count: 100)], server: "ntp.example.com", port: 123,
            warnings: [7, 8])
        #expect(try Self.parse(response.encoded()) == response)
        #expect(try Self.parse(Self.expected.encoded()) == Self.expected)
    }

    /// An NTPv4 Server Negotiation record (here an IPv6 address) is reported.
    @Test func serverAndPortHonoured() throws {
        let server: [UInt8] = [0x00, 0x06, 0x00, 0x03] + Array("::1".utf8)
        let response = try Self.parse(Self.nextProtocolNTP + Self.aead15 + server + Self.cookie + Self.end)
        #expect(response.server == "::1")
        #expect(response.port == nil)
    }

    /// An unknown record without the critical bit is skipped.
    @Test func nonCriticalUnknownRecordIsSkipped() throws {
        let unknown: [UInt8] = [0x40, 0x00, 0x00, 0x03, 1, 2, 3]
        let response = try Self.parse(Self.nextProtocolNTP + unknown + Self.aead15 + Self.cookie + Self.end)
        #expect(response.cookies == [[1, 2, 3, 4]])
    }

    /// An unknown record with the critical bit fails the response.
    @Test func criticalUnknownRecordIsAnError() {
        let unknown: [UInt8] = [0x80, 0x08, 0x00, 0x00]
        #expect(
            Self.code(Self.nextProtocolNTP + unknown + Self.aead15 + Self.cookie + Self.end)
                == .unknownCriticalRecord)
    }

    /// An Error record fails the response with its code.
    @Test(arguments: [UInt16(0), 1, 2, 999])
    func errorRecordSurfacesItsCode(_ code: UInt16) {
        let record = NTSKERecord(critical: true, type: .error, value: code).encoded()
        do {
            _ = try Self.parse(record + Self.end)
            Issue.record("accepted an Error record")
        } catch {
            #expect(error.code == .serverError)
            #expect(error.serverCode == code)
        }
    }

    /// Warning codes are reported with the response.
    @Test func warningsAreSurfaced() throws {
        let warning = NTSKERecord(critical: true, type: .warning, value: 42).encoded()
        let response = try Self.parse(Self.nextProtocolNTP + warning + Self.aead15 + Self.cookie + Self.end)
        #expect(response.warnings == [42])
    }

    /// An AEAD algorithm we did not offer, none at all, or no AEAD record fails.
    @Test func aeadNotOursIsAnError() {
        let aead: [UInt8] = [0x80, 0x04, 0x00, 0x02, 0x00, 0x10]
        #expect(Self.code(Self.nextProtocolNTP + aead + Self.cookie + Self.end) == .unsupportedAEAD)
        #expect(
            Self.code(Self.nextProtocolNTP + [0x80, 0x04, 0, 0] + Self.cookie + Self.end) == .unsupportedAEAD)
        #expect(Self.code(Self.nextProtocolNTP + Self.cookie + Self.end) == .unsupportedAEAD)
    }

    /// A Next Protocol other than NTPv4, an empty one, or none fails.
    @Test func noNTPv4IsAnError() {
        #expect(
            Self.code([0x80, 0x01, 0x00, 0x02, 0x80, 0x01] + Self.aead15 + Self.cookie + Self.end) == .noNTPv4
        )
        #expect(Self.code([0x80, 0x01, 0x00, 0x00] + Self.aead15 + Self.cookie + Self.end) == .noNTPv4)
        #expect(Self.code(Self.aead15 + Self.cookie + Self.end) == .noNTPv4)
    }

    /// Records that may appear once, twice; bodies of the wrong length.
    @Test func duplicatesAndMalformedBodies() {
        #expect(
            Self.code(Self.nextProtocolNTP + Self.nextProtocolNTP + Self.aead15 + Self.cookie + Self.end)
                == .duplicateRecord)
        #expect(
            Self.code(Self.nextProtocolNTP + Self.aead15 + Self.aead15 + Self.cookie + Self.end)
                == .duplicateRecord)
        let port: [UInt8] = [0x00, 0x07, 0x00, 0x02, 0x00, 0x7b]
        #expect(
            Self.code(Self.nextProtocolNTP + Self.aead15 + port + port + Self.cookie + Self.end)
                == .duplicateRecord)
        #expect(
            Self.code(Self.nextProtocolNTP + Self.aead15 + [0, 7, 0, 2, 0, 0] + Self.cookie + Self.end)
                == .malformedRecord)
        #expect(Self.code(Self.nextProtocolNTP + Self.aead15 + [0, 5, 0, 0] + Self.end) == .malformedRecord)
        #expect(
            Self.code(Self.nextProtocolNTP + Self.aead15 + Self.cookie + [0x80, 0, 0, 1, 0])
                == .malformedRecord)
        #expect(
            Self.code([0x80, 0x01, 0x00, 0x04, 0, 0, 0, 1] + Self.aead15 + Self.cookie + Self.end)
                == .malformedRecord)
    }

    /// Server names that are empty, contain a space or DEL, or exceed 255 bytes.
    @Test func invalidServerNames() {
        for body in [[UInt8](), Array("a b".utf8), [0x7f], Array(repeating: 0x61, count: 256)] {
            let record = [0x00, 0x06, 0x00, UInt8(truncatingIfNeeded: body.count)]
            let bytes: [UInt8] = body.count > 255 ? [0x00, 0x06, 0x01, 0x00] + body : record + body
            #expect(
                Self.code(Self.nextProtocolNTP + Self.aead15 + bytes + Self.cookie + Self.end)
                    == .invalidServer)
        }
    }

    /// A response without a cookie fails.
    @Test func noCookiesIsAnError() {
        #expect(Self.code(Self.nextProtocolNTP + Self.aead15 + Self.end) == .noCookies)
    }

    /// Cookies past the cap are dropped, not kept.
    @Test func cookiesBeyondTheCapAreDropped() throws {
        let many = (0..<40).flatMap { _ in Self.cookie }
        let response = try Self.parse(Self.nextProtocolNTP + Self.aead15 + many + Self.end)
        #expect(response.cookies.count == NTSKEResponse.maximumCookies)
    }

    /// A stream that ends inside a record or before End of Message is truncated.
    @Test func truncatedBodyAndMissingEnd() {
        #expect(Self.code(Array(Self.chronydLike.dropLast(5))) == .truncated)
        #expect(Self.code(Array(Self.chronydLike.dropLast(4))) == .truncated)
        #expect(Self.code([]) == .truncated)
    }

    /// A record whose length would pass the size cap fails as soon as the cap is passed.
    @Test func lengthPastTheCap() {
        var parser = NTSKEResponseParser(maximumSize: 100)
        #expect(throws: NTSError.self) {
            try parser.consume([0x00, 0x05, 0x00, 0x63] + Array(repeating: 0, count: 97))
        }
        var other = NTSKEResponseParser(maximumSize: 1024)
        #expect((try? other.consume([0x00, 0x05, 0xff, 0xff])) == .needMoreBytes)
        do {
            _ = try other.consume(Array(repeating: 0, count: 1021))
            Issue.record("a record past the cap was accepted")
        } catch {
            #expect(error.code == .responseTooLarge)
        }
    }

    /// Bytes after End of Message, in the same read or a later one, fail.
    @Test func bytesAfterEnd() throws {
        #expect(Self.code(Self.chronydLike + [0]) == .bytesAfterEnd)
        var parser = NTSKEResponseParser()
        #expect(try parser.consume(Self.chronydLike) == .complete(Self.expected))
        #expect(throws: NTSError(.bytesAfterEnd, "1 bytes after End of Message")) { try parser.consume([0]) }
        // A failed parser stays failed.
        #expect(throws: NTSError.self) { try parser.finish() }
    }
}

/// Regressions found by the `ntske` fuzz target.
struct NTSKEFuzzRegressionTests {
    /// An incomplete response ended by End of Message with bytes after it fails the same way
    /// whether or not those bytes arrive in the same read (fuzz: bytes_after_end vs no_cookies).
    @Test func incompleteResponseWithTrailingBytesFailsTheSameInAnySplit() throws {
        let bytes = NTSKETests.nextProtocolNTP + NTSKETests.aead15 + [0x00, 0x00, 0x00, 0x00, 0x2e]
        for split in 0...bytes.count {
            var parser = NTSKEResponseParser()
            do {
                _ = try parser.consume(bytes[..<split])
                _ = try parser.consume(bytes[split...])
                _ = try parser.finish()
                Issue.record("accepted at split \(split)")
            } catch {
                #expect(error.code == .noCookies, "split \(split)")
            }
        }
    }
}
