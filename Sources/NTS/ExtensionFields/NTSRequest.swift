import SNTP
import TimeValues

/// A client's NTS-protected NTP request (RFC 8915 §5.7): the header, a Unique Identifier, one
/// cookie, placeholders of the cookie's length to be refilled, and the authenticator. The crypto is
/// the caller's: ``encoded(seal:)`` hands it exactly the bytes to authenticate.
package struct NTSRequest: Sendable {
    /// The most placeholders a request may carry (the client holds at most 8 cookies).
    package static let maximumPlaceholders = 7

    /// The bytes before the authenticator field: the associated data to authenticate.
    package let associatedData: [UInt8]
    /// The nonce for the authenticator.
    package let nonce: [UInt8]
    /// The plaintext to encrypt (usually empty).
    package let plaintext: [UInt8]

    /// Lays out a request. `uniqueIdentifier` must be 32–256 bytes, `cookie` 1–1024 bytes,
    /// `placeholderCount` 0–7, `nonce` 1–1024 bytes, and the packet within ``NTSPacket/maximumSize``;
    /// else ``NTSError/Code/unencodable``.
    package init(
        header: NTPPacket, uniqueIdentifier: [UInt8], cookie: [UInt8], placeholderCount: Int, nonce: [UInt8],
        plaintext: [UInt8] = []
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
        // Written straight into one buffer: the bytes `NTSPacket.encode(header:fields:)` makes of
        // these fields, without an array per field.
        let length =
            NTPPacket.headerSize + Self.fieldLength(uniqueIdentifier.count) + (1 + placeholderCount)
            * Self.fieldLength(cookie.count)
        // The smallest authenticator this nonce allows: 8 + nonce space + a 16-byte tag.
        guard length + Self.authenticatorLength(nonce: nonce.count, ciphertext: 16) <= NTSPacket.maximumSize
        else {
            throw NTSError(
                .unencodable, "a request of \(length) bytes before the authenticator exceeds the packet cap")
        }
        var associatedData: [UInt8] = []
        associatedData.reserveCapacity(length)
        associatedData += header.encoded()
        Self.appendField(.uniqueIdentifier, body: uniqueIdentifier, to: &associatedData)
        Self.appendField(.cookie, body: cookie, to: &associatedData)
        for _ in 0..<placeholderCount {
            Self.appendField(.cookiePlaceholder, zeros: cookie.count, to: &associatedData)
        }
        self.associatedData = associatedData
        self.nonce = nonce
        self.plaintext = plaintext
    }

    /// The request's bytes with `ciphertext` (at least 16 bytes) in the authenticator; throws
    /// ``NTSError/Code/unencodable`` when it is shorter or the packet would exceed the cap.
    package func encoded(ciphertext: [UInt8]) throws(NTSError) -> [UInt8] {
        guard ciphertext.count >= NTSAuthenticator.minimumCiphertextLength else {
            throw NTSError(.unencodable, "ciphertext of \(ciphertext.count) bytes, shorter than a SIV tag")
        }
        guard ciphertext.count <= 16_384 else {
            throw NTSError(.unencodable, "nonce of \(nonce.count) or ciphertext of \(ciphertext.count) bytes")
        }
        let length = Self.authenticatorLength(nonce: nonce.count, ciphertext: ciphertext.count)
        guard length <= NTSPacket.maximumSize - associatedData.count else {
            throw NTSError(.unencodable, "the request would exceed \(NTSPacket.maximumSize) bytes")
        }
        // What `NTSAuthenticator(nonce:ciphertext:).field().encoded()` gives, appended in place.
        var bytes = associatedData
        bytes.reserveCapacity(associatedData.count + length)
        WireBytes.append(NTPExtensionFieldType.authenticator.rawValue, to: &bytes)
        WireBytes.append(UInt16(length), to: &bytes)
        WireBytes.append(UInt16(nonce.count), to: &bytes)
        WireBytes.append(UInt16(ciphertext.count), to: &bytes)
        Self.append(nonce, paddedTo: WireBytes.padded4(nonce.count), to: &bytes)
        Self.append(ciphertext, paddedTo: WireBytes.padded4(ciphertext.count), to: &bytes)
        let nonceSpace = WireBytes.padded4(nonce.count)
        if nonceSpace < NTSAuthenticator.requiredNonceSpace {
            bytes.append(
                contentsOf: repeatElement(0, count: NTSAuthenticator.requiredNonceSpace - nonceSpace))
        }
        return bytes
    }

    /// The request's bytes, sealing with `seal(associatedData, nonce, plaintext)`, which returns the
    /// AEAD ciphertext (for AES-SIV: tag then encrypted plaintext).
    package func encoded(
        seal: (_ associatedData: [UInt8], _ nonce: [UInt8], _ plaintext: [UInt8]) throws(NTSError) -> [UInt8]
    ) throws(NTSError) -> [UInt8] {
        try encoded(ciphertext: seal(associatedData, nonce, plaintext))
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

    /// Appends the field `type` with `body` (at most 65,528 bytes), padded as ``NTPExtensionField``.
    static func appendField(_ type: NTPExtensionFieldType, body: [UInt8], to bytes: inout [UInt8]) {
        let length = fieldLength(body.count)
        WireBytes.append(type.rawValue, to: &bytes)
        WireBytes.append(UInt16(truncatingIfNeeded: length), to: &bytes)
        append(body, paddedTo: length - NTPExtensionField.headerSize, to: &bytes)
    }

    /// Appends the field `type` whose body is `count` zero bytes (a placeholder).
    static func appendField(_ type: NTPExtensionFieldType, zeros count: Int, to bytes: inout [UInt8]) {
        let length = fieldLength(count)
        WireBytes.append(type.rawValue, to: &bytes)
        WireBytes.append(UInt16(truncatingIfNeeded: length), to: &bytes)
        bytes.append(contentsOf: repeatElement(0, count: length - NTPExtensionField.headerSize))
    }

    /// Appends `value` and zeros after it up to `length` bytes.
    static func append(_ value: [UInt8], paddedTo length: Int, to bytes: inout [UInt8]) {
        bytes += value
        bytes.append(contentsOf: repeatElement(0, count: length - value.count))
    }
}
