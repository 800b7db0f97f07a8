// libFuzzer target: Roughtime's message parser, packet framing, request reader and reply
// verification (RFC 10049, drafts 10–15, Google-Roughtime).
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform, SNTP,
// NetClockTLS and Roughtime compiled for fuzzing; it uses their `package` API. Not part of the
// Swift package.
//
// The input is taken as a message, as a framed packet, as a request, and as a reply to fixed
// requests (RFC version 1 and Google-Roughtime) under a fixed long-term key; the seed corpus holds
// valid replies to exactly those requests, so mutations start deep in the verifier.
//
// Invariants: nothing traps; a message that parses re-encodes to exactly its bytes (the encoding
// is canonical) and its tags are strictly ascending; every failure carries a snake_case code; a
// reply that verifies echoes the request's nonce, speaks an offered version, has a non-zero
// radius and a midpoint inside its delegation, and is no larger than the request.

import NetClockTLS
import Roughtime
import SNTP
import TimeValues

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzRoughtime invariant violated: \(message())")
    }
}

/// The fixed long-term key (seed 0x01…0x20) and requests (nonce bytes 0xa0, 0xa1, …) the seed
/// corpus was made for.
private struct Fixture: Sendable {
    let publicKey: [UInt8]
    let requests: [RoughtimeRequest]

    init() {
        let seed = (1...32).map { UInt8($0) }
        let nonce = (0..<64).map { UInt8(0xA0 &+ $0) }
        guard let key = try? Ed25519.PrivateKey(seed: seed),
            let rfc = try? RoughtimeRequest(
                nonce: Array(nonce.prefix(32)), versions: [.rfc], publicKey: key.publicKey),
            let offer = try? RoughtimeRequest(
                nonce: Array(nonce.prefix(32)), versions: RoughtimeVersion.defaultOffer,
                publicKey: key.publicKey),
            let google = try? RoughtimeRequest(nonce: nonce, versions: [.google], publicKey: nil)
        else {
            fatalError("FuzzRoughtime: cannot build the fixture")
        }
        publicKey = key.publicKey
        requests = [rfc, offer, google]
    }
}

private let fixture = Fixture()

private func checkCode(_ error: RoughtimeError) {
    let code = error.code.rawValue
    require(
        !code.isEmpty && code.utf8.allSatisfy { (0x61...0x7A).contains($0) || $0 == 0x5F }, "code \(code)")
    _ = error.description
}

private func checkMessage(_ bytes: [UInt8]) {
    do {
        let message = try RoughtimeMessage(parsing: bytes)
        require(message.encoded == bytes, "a parsed message did not re-encode to its bytes")
        let tags = message.entries.map(\.tag)
        require(zip(tags, tags.dropFirst()).allSatisfy { $0 < $1 }, "tags not strictly ascending")
        for entry in message.entries {
            require(message.value(entry.tag) == entry.value, "lookup of \(entry.tag)")
        }
    } catch {
        checkCode(error)
    }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoughtime(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkMessage(bytes)
    do {
        checkMessage(Array(try RoughtimePacket.message(in: bytes)))
    } catch {
        checkCode(error)
    }
    do {
        let request = try RoughtimeRequest(parsing: bytes)
        require(request.nonce.count == (request.isGoogle ? 64 : 32), "nonce of \(request.nonce.count) bytes")
        require(!request.offeredVersions.isEmpty, "no versions")
    } catch {
        checkCode(error)
    }
    for request in fixture.requests {
        do {
            let response = try RoughtimeResponse(verifying: bytes, for: request, publicKey: fixture.publicKey)
            require(bytes.count <= request.bytes.count, "amplification")
            require(
                request.offeredVersions.contains(response.version), "version \(response.version) not offered")
            require(response.radius > .zero, "zero radius")
            require(
                response.delegationStart <= response.midpoint && response.midpoint <= response.delegationEnd,
                "midpoint outside the delegation")
            require(response.bytes == bytes, "bytes")
        } catch {
            checkCode(error)
        }
    }
    return 0
}
