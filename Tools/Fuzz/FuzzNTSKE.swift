// libFuzzer target: the NTS-KE response parser (RFC 8915 §4), fed in arbitrary splits.
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform, SNTP and NTS
// compiled for fuzzing; it uses their `package` API. Not part of the Swift package.
//
// Input layout: byte 0 seeds the chunk sizes; the rest is the record stream.
//
// Invariants: the parser never traps; one chunk and any split give the same response or the same
// error code; a complete response is valid (NTPv4, AEAD 15, 1–16 cookies of 1–1024 bytes, a
// printable server name) and, re-encoded by the server-side encoder, parses back equal.

import NTS

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzNTSKE invariant violated: \(message())")
    }
}

/// The parse of `stream` in chunks whose sizes come from `seed`: the response or the error code.
private func parse(_ stream: [UInt8], seed: UInt8, maximumSize: Int = NTSKEResponseParser.defaultMaximumSize)
    -> Result<NTSKEResponse, NTSError>
{
    var parser = NTSKEResponseParser(maximumSize: maximumSize)
    var state = UInt32(seed) &* 2_654_435_761 | 1
    var offset = 0
    do {
        while offset < stream.count {
            state = state &* 1_103_515_245 &+ 12_345
            let size = seed == 0 ? stream.count : Int((state >> 16) % 64) + 1
            let end = min(stream.count, offset + size)
            _ = try parser.consume(stream[offset..<end])
            offset = end
        }
        return .success(try parser.finish())
    } catch {
        _ = error.description
        return .failure(error)
    }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNTSKE(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let seed = bytes.first else { return 0 }
    let stream = Array(bytes.dropFirst())
    let whole = parse(stream, seed: 0)
    let split = parse(stream, seed: seed)
    switch (whole, split) {
    case (.success(let a), .success(let b)):
        require(a == b, "one chunk and splits (seed \(seed)) gave different responses")
    case (.failure(let a), .failure(let b)):
        require(a.code == b.code, "one chunk failed with \(a.code), splits with \(b.code)")
        if a.code == .serverError {
            require(a.serverCode != nil && a.serverCode == b.serverCode, "server codes differ")
        }
    default:
        require(false, "one chunk gave \(whole), splits \(split)")
    }
    // A small cap must only ever add a size error.
    _ = parse(stream, seed: seed, maximumSize: 256)
    guard case .success(let response) = whole else { return 0 }
    require(response.nextProtocol == 0, "next protocol \(response.nextProtocol)")
    require(response.aead == 15, "AEAD \(response.aead)")
    require(
        (1...NTSKEResponse.maximumCookies).contains(response.cookies.count),
        "\(response.cookies.count) cookies")
    require(
        response.cookies.allSatisfy { (1...NTSKEResponse.maximumCookieLength).contains($0.count) },
        "cookie length")
    if let server = response.server {
        require(!server.isEmpty && server.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "server \(server)")
    }
    require(response.port != 0, "port 0")
    let encoded: [UInt8]
    do {
        encoded = try response.encoded()
    } catch {
        require(false, "a parsed response did not encode: \(error)")
        return 0
    }
    let again = parse(encoded, seed: 0)
    require(again == .success(response), "the re-encoded response parsed as \(again)")
    return 0
}
