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
        var fields = [
            try NTPExtensionField(type: .uniqueIdentifier, body: uniqueIdentifier),
            try NTPExtensionField(type: .cookie, body: cookie),
        ]
        let placeholder = try NTPExtensionField(
            type: .cookiePlaceholder, body: Array(repeating: 0, count: cookie.count))
        fields += Array(repeating: placeholder, count: placeholderCount)
        let associatedData = NTSPacket.encode(header: header, fields: fields)
        // The smallest authenticator this nonce allows: 8 + nonce space + a 16-byte tag.
        let smallestAuthenticator =
            24 + max(NTSAuthenticator.requiredNonceSpace, WireBytes.padded4(nonce.count))
        guard associatedData.count + smallestAuthenticator <= NTSPacket.maximumSize else {
            throw NTSError(
                .unencodable,
                "a request of \(associatedData.count) bytes before the authenticator exceeds the packet cap")
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
        let field = try NTSAuthenticator(nonce: nonce, ciphertext: ciphertext).field()
        guard field.length <= NTSPacket.maximumSize - associatedData.count else {
            throw NTSError(.unencodable, "the request would exceed \(NTSPacket.maximumSize) bytes")
        }
        return associatedData + field.encoded()
    }

    /// The request's bytes, sealing with `seal(associatedData, nonce, plaintext)`, which returns the
    /// AEAD ciphertext (for AES-SIV: tag then encrypted plaintext).
    package func encoded(
        seal: (_ associatedData: [UInt8], _ nonce: [UInt8], _ plaintext: [UInt8]) throws(NTSError) -> [UInt8]
    ) throws(NTSError) -> [UInt8] {
        try encoded(ciphertext: seal(associatedData, nonce, plaintext))
    }
}
