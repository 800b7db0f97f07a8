import SNTP
import TimeValues

/// A client's NTS-protected NTP request (RFC 8915 §5.7): the header, a Unique Identifier, one
/// cookie, placeholders of the cookie's length to be refilled, and the authenticator. The crypto is
/// the caller's: ``encoded(ciphertextLength:sealing:)`` hands it exactly the bytes to authenticate,
/// where they lie in the one buffer the packet is written to.
package struct NTSRequest: Sendable {
    /// The most placeholders a request may carry (the client holds at most 8 cookies).
    package static let maximumPlaceholders = 7

    /// The NTP header.
    let header: NTPPacket
    /// The Unique Identifier's body.
    let uniqueIdentifier: ArraySlice<UInt8>
    /// The cookie spent.
    let cookie: [UInt8]
    /// How many placeholders follow the cookie.
    let placeholderCount: Int
    /// The nonce for the authenticator.
    package let nonce: ArraySlice<UInt8>
    /// The plaintext to encrypt (usually empty).
    package let plaintext: [UInt8]
    /// The length of the bytes before the authenticator.
    let associatedDataLength: Int

    /// Lays out a request. `uniqueIdentifier` must be 32–256 bytes, `cookie` 1–1024 bytes,
    /// `placeholderCount` 0–7, `nonce` 1–1024 bytes, and the packet within ``NTSPacket/maximumSize``;
    /// else ``NTSError/Code/unencodable``.
    package init(
        header: NTPPacket, uniqueIdentifier: [UInt8], cookie: [UInt8], placeholderCount: Int, nonce: [UInt8],
        plaintext: [UInt8] = []
    ) throws(NTSError) {
        try self.init(
            header: header, uniqueIdentifier: uniqueIdentifier[...], cookie: cookie,
            placeholderCount: placeholderCount, nonce: nonce[...], plaintext: plaintext)
    }

    /// ``init(header:uniqueIdentifier:cookie:placeholderCount:nonce:plaintext:)`` with the Unique
    /// Identifier and the nonce as parts of one draw of random bytes, neither copied.
    package init(
        header: NTPPacket, uniqueIdentifier: ArraySlice<UInt8>, cookie: [UInt8], placeholderCount: Int,
        nonce: ArraySlice<UInt8>, plaintext: [UInt8] = []
    ) throws(NTSError) {
        guard (NTSPacket.minimumUniqueIdentifierLength...256).contains(uniqueIdentifier.count) else {
            throw NTSError(.unencodable, "Unique Identifier of \(uniqueIdentifier.count) bytes (32–256)")
        }
        guard (1...NTSKEResponse.maximumCookieLength).contains(cookie.count) else {
            throw NTSError(.unencodable, "cookie of \(cookie.count) bytes")
        }
        guard (0...Self.maximumPlaceholders).contains(placeholderCount) else {
            throw NTSError(.unencodable, "\(placeholderCount) placeholders (0–\(Self.maximumPlaceholders))")
        }
        guard (1...1024).contains(nonce.count), plaintext.count <= 4096 else {
            throw NTSError(.unencodable, "nonce of \(nonce.count) or plaintext of \(plaintext.count) bytes")
        }
        let length =
            NTPPacket.headerSize + Self.fieldLength(uniqueIdentifier.count) + (1 + placeholderCount)
            * Self.fieldLength(cookie.count)
        // The smallest authenticator this nonce allows: 8 + nonce space + a 16-byte tag.
        guard length + Self.authenticatorLength(nonce: nonce.count, ciphertext: 16) <= NTSPacket.maximumSize
        else {
            throw NTSError(
                .unencodable, "a request of \(length) bytes before the authenticator exceeds the packet cap")
        }
        self.header = header
        self.uniqueIdentifier = uniqueIdentifier
        self.cookie = cookie
        self.placeholderCount = placeholderCount
        self.nonce = nonce
        self.plaintext = plaintext
        self.associatedDataLength = length
    }

    /// The bytes before the authenticator field: the associated data to authenticate.
    package var associatedData: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: associatedDataLength)
        bytes.withUnsafeMutableBytes { writeAssociatedData(into: $0) }
        return bytes
    }

    /// The request's bytes with `ciphertext` (at least 16 bytes) in the authenticator; throws
    /// ``NTSError/Code/unencodable`` when it is shorter or the packet would exceed the cap.
    package func encoded(ciphertext: [UInt8]) throws(NTSError) -> [UInt8] {
        try encoded(ciphertextLength: ciphertext.count) { _, _, _, space throws(NTSError) in
            ciphertext.withUnsafeBytes { space.copyMemory(from: $0) }
        }
    }

    /// The request's bytes, sealing with `seal(associatedData, nonce, plaintext)`, which returns the
    /// AEAD ciphertext (for AES-SIV: tag then encrypted plaintext).
    package func encoded(
        seal: (_ associatedData: [UInt8], _ nonce: [UInt8], _ plaintext: [UInt8]) throws(NTSError) -> [UInt8]
    ) throws(NTSError) -> [UInt8] {
        try encoded(ciphertext: seal(associatedData, Array(nonce), plaintext))
    }

    /// The request's bytes, written once into one buffer and sealed there: `sealing` is handed the
    /// associated data and the nonce where they lie in the packet, the plaintext, and the
    /// authenticator's `ciphertextLength` bytes (at least 16) to write the AEAD ciphertext to.
    /// Throws ``NTSError/Code/unencodable`` when the ciphertext is shorter than a tag or the packet
    /// would exceed the cap, and what `sealing` throws.
    package func encoded(
        ciphertextLength: Int,
        sealing: (
            _ associatedData: UnsafeRawBufferPointer, _ nonce: UnsafeRawBufferPointer,
            _ plaintext: UnsafeRawBufferPointer, _ ciphertext: UnsafeMutableRawBufferPointer
        ) throws(NTSError) -> Void
    ) throws(NTSError) -> [UInt8] {
        guard ciphertextLength >= NTSAuthenticator.minimumCiphertextLength else {
            throw NTSError(.unencodable, "ciphertext of \(ciphertextLength) bytes, shorter than a SIV tag")
        }
        guard ciphertextLength <= 16_384 else {
            throw NTSError(.unencodable, "nonce of \(nonce.count) or ciphertext of \(ciphertextLength) bytes")
        }
        let length = Self.authenticatorLength(nonce: nonce.count, ciphertext: ciphertextLength)
        guard length <= NTSPacket.maximumSize - associatedDataLength else {
            throw NTSError(.unencodable, "the request would exceed \(NTSPacket.maximumSize) bytes")
        }
        // Zeros: every padding is already in place.
        var bytes = [UInt8](repeating: 0, count: associatedDataLength + length)
        var failure: NTSError?
        bytes.withUnsafeMutableBytes { packet in
            writeAssociatedData(into: packet)
            // What `NTSAuthenticator(nonce:ciphertext:).field().encoded()` gives, written in place.
            let field = associatedDataLength
            packet.storeBytes(
                of: NTPExtensionFieldType.authenticator.rawValue.bigEndian, toByteOffset: field,
                as: UInt16.self)
            packet.storeBytes(of: UInt16(length).bigEndian, toByteOffset: field + 2, as: UInt16.self)
            packet.storeBytes(of: UInt16(nonce.count).bigEndian, toByteOffset: field + 4, as: UInt16.self)
            packet.storeBytes(
                of: UInt16(ciphertextLength).bigEndian, toByteOffset: field + 6, as: UInt16.self)
            let nonceStart = field + 8
            nonce.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: packet[nonceStart..<(nonceStart + nonce.count)])
                    .copyMemory(from: $0)
            }
            // The ciphertext follows the padded nonce; RFC 8915 §5.6's additional padding (a nonce
            // shorter than 16 bytes) comes after the ciphertext.
            let ciphertextStart = nonceStart + WireBytes.padded4(nonce.count)
            plaintext.withUnsafeBytes { plaintext in
                do throws(NTSError) {
                    try sealing(
                        UnsafeRawBufferPointer(rebasing: packet[..<associatedDataLength]),
                        UnsafeRawBufferPointer(rebasing: packet[nonceStart..<(nonceStart + nonce.count)]),
                        plaintext,
                        UnsafeMutableRawBufferPointer(
                            rebasing: packet[ciphertextStart..<(ciphertextStart + ciphertextLength)]))
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes the bytes before the authenticator to the start of `packet` (zeroed, at least
    /// ``associatedDataLength`` bytes): what `NTSPacket.encode(header:fields:)` makes of these fields.
    private func writeAssociatedData(into packet: UnsafeMutableRawBufferPointer) {
        header.encode(into: packet)
        var offset = NTPPacket.headerSize
        uniqueIdentifier.withUnsafeBytes {
            offset = Self.writeField(.uniqueIdentifier, body: $0, at: offset, into: packet)
        }
        cookie.withUnsafeBytes { cookie in
            offset = Self.writeField(.cookie, body: cookie, at: offset, into: packet)
            for _ in 0..<placeholderCount {
                // A placeholder's body is zeros as long as the cookie: the buffer's own.
                offset = Self.writeField(
                    .cookiePlaceholder, body: nil, length: cookie.count, at: offset, into: packet)
            }
        }
    }
}

extension NTSRequest {
    /// The wire length of a field with a body of `count` bytes (``NTPExtensionField``'s padding:
    /// to a multiple of 4, at least 16 in all).
    static func fieldLength(_ count: Int) -> Int {
        max(NTPExtensionField.minimumLength, WireBytes.padded4(NTPExtensionField.headerSize + count))
    }

    /// The wire length of the authenticator field for a nonce and ciphertext of these lengths
    /// (``NTSAuthenticator/field()``'s layout: both padded to 4, the nonce space to 16).
    static func authenticatorLength(nonce: Int, ciphertext: Int) -> Int {
        8 + max(NTSAuthenticator.requiredNonceSpace, WireBytes.padded4(nonce)) + WireBytes.padded4(ciphertext)
    }

    /// Writes the field `type` with `body` (or, when nil, `length` zero bytes already in the zeroed
    /// `packet`) at `offset`, padded as ``NTPExtensionField``; returns the offset after it.
    static func writeField(
        _ type: NTPExtensionFieldType, body: UnsafeRawBufferPointer?, length: Int? = nil, at offset: Int,
        into packet: UnsafeMutableRawBufferPointer
    ) -> Int {
        let fieldLength = fieldLength(body?.count ?? length ?? 0)
        packet.storeBytes(of: type.rawValue.bigEndian, toByteOffset: offset, as: UInt16.self)
        packet.storeBytes(
            of: UInt16(truncatingIfNeeded: fieldLength).bigEndian, toByteOffset: offset + 2, as: UInt16.self)
        if let body, !body.isEmpty {
            let start = offset + NTPExtensionField.headerSize
            UnsafeMutableRawBufferPointer(rebasing: packet[start..<(start + body.count)]).copyMemory(
                from: body)
        }
        return offset + fieldLength
    }
}
