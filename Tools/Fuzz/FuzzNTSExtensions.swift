// libFuzzer target: NTS extension fields for NTPv4 (RFC 8915 §5, RFC 7822 framing).
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform, SNTP and NTS
// compiled for fuzzing; it uses their `package` API. Not part of the Swift package.
//
// The input is read three ways: as an NTS-protected packet, as decrypted plaintext, and as the
// material of a client request (byte 0: placeholders; then a 32-byte Unique Identifier; the rest:
// the cookie). Invariants: nothing traps; a parsed packet re-encodes to the same bytes, its fields
// tile the bytes after the header with the authenticator last and the associated data right
// before it; parsed plaintext re-encodes to the same bytes; a request the encoder builds parses
// back with its parts in place.

import NTS
import SNTP
import TimeValues

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzNTSExtensions invariant violated: \(message())")
    }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNTSExtensions(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkPacket(bytes)
    checkNegativeAcknowledgement(bytes)
    checkPlaintext(bytes)
    checkRequest(bytes)
    return 0
}

private func checkPacket(_ bytes: [UInt8]) {
    let packet: NTSPacket
    do {
        packet = try NTSPacket(parsing: bytes)
    } catch {
        _ = error.description
        return
    }
    require(packet.encoded() == bytes, "re-encoding changed the packet")
    var offset = NTPPacket.headerSize
    for located in packet.fields {
        require(located.offset == offset, "field at \(located.offset), expected \(offset)")
        require(
            located.field.length % 4 == 0 && located.field.length >= 16,
            "field length \(located.field.length)")
        offset += located.field.length
    }
    require(offset == bytes.count, "fields end at \(offset) of \(bytes.count)")
    require(packet.fields.last?.field.type == .authenticator, "authenticator not last")
    require(packet.fields.last?.offset == packet.authenticatorOffset, "authenticator offset")
    require(packet.associatedDataRange == 0..<packet.authenticatorOffset, "associated data range")
    require(packet.fields.filter { $0.field.type == .uniqueIdentifier }.count == 1, "Unique Identifier count")
    require(packet.uniqueIdentifier.count >= 32, "short Unique Identifier")
    require(
        packet.authenticator.ciphertext.count >= 16 && !packet.authenticator.nonce.isEmpty,
        "authenticator sizes")
    // The authenticator re-laid out by the encoder carries the same nonce and ciphertext.
    if let field = try? packet.authenticator.field() {
        require(
            (try? NTSAuthenticator(parsing: field.body)) == packet.authenticator, "authenticator round trip")
    }
}

/// The lighter parse of an NTS NAK (no authenticator): total, and it agrees with the full parser
/// on every packet both accept.
private func checkNegativeAcknowledgement(_ bytes: [UInt8]) {
    let identifier: [UInt8]?
    do {
        identifier = try NTSPacket.uniqueIdentifier(inUnauthenticated: bytes)
    } catch {
        _ = error.description
        return
    }
    if let packet = try? NTSPacket(parsing: bytes) {
        require(identifier == packet.uniqueIdentifier, "NAK parse disagrees on the Unique Identifier")
    }
}

private func checkPlaintext(_ bytes: [UInt8]) {
    guard let fields = try? NTSEncryptedFields.parse(bytes) else {
        require(
            (try? NTSEncryptedFields.cookies(inPlaintext: bytes)) == nil, "cookies read from broken framing")
        return
    }
    require(fields.flatMap { $0.encoded() } == bytes, "plaintext re-encoding differs")
    let cookies = NTSEncryptedFields.cookies(in: fields)
    require(
        (try? NTSEncryptedFields.cookies(inPlaintext: bytes)) == cookies, "the two cookie readings differ")
    if fields.allSatisfy({ $0.type == .cookie }) {
        require((try? NTSEncryptedFields.encode(cookies: cookies)) == bytes, "cookie re-encoding differs")
    }
}

private func checkRequest(_ bytes: [UInt8]) {
    guard bytes.count >= 34 else { return }
    let placeholders = Int(bytes[0] % 8)
    let uniqueIdentifier = Array(bytes[1..<33])
    let cookie = Array(bytes[33...].prefix(1024))
    let nonce = Array(uniqueIdentifier.prefix(Int(bytes[0] >> 3) % 20 + 1))
    let header = NTPPacket.clientRequest(nonce: NTPTimestamp(rawValue: 0x0102_0304_0506_0708))
    let request: NTSRequest
    let encoded: [UInt8]
    do {
        request = try NTSRequest(
            header: header, uniqueIdentifier: uniqueIdentifier, cookie: cookie,
            placeholderCount: placeholders,
            nonce: nonce)
        encoded = try request.encoded { ad, nonce, plaintext throws(NTSError) in
            Array(ad.suffix(16)) + plaintext
        }
    } catch {
        // Only a request past the packet cap may be refused.
        let cookieField = 4 + max(12, (cookie.count + 3) & ~3)
        let size = 48 + 36 + (1 + placeholders) * cookieField + 24 + max(16, (nonce.count + 3) & ~3)
        require(
            error.code == .unencodable && size > NTSPacket.maximumSize,
            "a \(size)-byte request did not encode: \(error)")
        return
    }
    let packet: NTSPacket
    do {
        packet = try NTSPacket(parsing: encoded)
    } catch {
        require(false, "an encoded request did not parse: \(error)")
        return
    }
    require(Array(encoded[packet.associatedDataRange]) == request.associatedData, "associated data")
    require(packet.uniqueIdentifier == uniqueIdentifier, "Unique Identifier")
    require(packet.authenticator.nonce == nonce, "nonce")
    require(packet.authenticator.ciphertext == Array(request.associatedData.suffix(16)), "ciphertext")
    require(packet.fields.count == 3 + placeholders, "\(packet.fields.count) fields")
    require(packet.fields[1].field.body.prefix(cookie.count).elementsEqual(cookie), "cookie")
}
