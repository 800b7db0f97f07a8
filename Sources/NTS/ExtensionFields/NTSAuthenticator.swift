/// The body of the NTS Authenticator and Encrypted Extension Fields field (RFC 8915 §5.6): nonce
/// length, ciphertext length, nonce and ciphertext each padded to a multiple of 4, then additional
/// padding so that the nonce and the padding after it span at least 16 bytes (N_REQ for AES-SIV).
package struct NTSAuthenticator: Hashable, Sendable {
    /// N_REQ: min(16, N_MAX); AES-SIV-CMAC-256 has no N_MAX below 16.
    package static let requiredNonceSpace = 16
    /// The shortest ciphertext: the 16-byte SIV tag of AES-SIV-CMAC-256.
    package static let minimumCiphertextLength = 16

    /// The nonce.
    package let nonce: [UInt8]
    /// The ciphertext (for AES-SIV the 16-byte tag, then the encrypted fields).
    package let ciphertext: [UInt8]

    /// Creates an authenticator value.
    package init(nonce: [UInt8], ciphertext: [UInt8]) {
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    /// Parses an authenticator field's body.
    package init(parsing body: [UInt8]) throws(NTSError) {
        let (nonce, ciphertext) = try Self.ranges(in: body, body: 0..<body.count)
        self.nonce = Array(body[nonce])
        self.ciphertext = Array(body[ciphertext])
    }

    /// Where the nonce and the ciphertext lie in an authenticator body, `bytes[body]`, with every
    /// check of ``init(parsing:)`` and without copying either.
    static func ranges(in bytes: [UInt8], body: Range<Int>) throws(NTSError) -> (
        nonce: Range<Int>, ciphertext: Range<Int>
    ) {
        let start = body.lowerBound
        guard body.count >= 4, let nonceLength = WireBytes.uint16(bytes, at: start),
            let ciphertextLength = WireBytes.uint16(bytes, at: start + 2)
        else {
            throw NTSError(.malformedAuthenticator, "authenticator body of \(body.count) bytes")
        }
        let nonceEnd = 4 + WireBytes.padded4(Int(nonceLength))
        let ciphertextEnd = nonceEnd + WireBytes.padded4(Int(ciphertextLength))
        guard nonceLength > 0, ciphertextEnd <= body.count else {
            throw NTSError(
                .malformedAuthenticator,
                "nonce \(nonceLength) and ciphertext \(ciphertextLength) bytes do not fit a \(body.count)-byte body"
            )
        }
        guard Int(ciphertextLength) >= Self.minimumCiphertextLength else {
            throw NTSError(
                .malformedAuthenticator, "ciphertext of \(ciphertextLength) bytes, shorter than a SIV tag")
        }
        // Nonce, its padding and the additional padding (everything after the ciphertext).
        guard nonceEnd - 4 + (body.count - ciphertextEnd) >= Self.requiredNonceSpace else {
            throw NTSError(
                .malformedAuthenticator, "nonce of \(nonceLength) bytes without the additional padding to 16")
        }
        return (
            (start + 4)..<(start + 4 + Int(nonceLength)),
            (start + nonceEnd)..<(start + nonceEnd + Int(ciphertextLength))
        )
    }

    /// The field carrying this authenticator, with the additional padding RFC 8915 §5.6 requires.
    /// Throws ``NTSError/Code/unencodable`` when a length does not fit.
    package func field() throws(NTSError) -> NTPExtensionField {
        guard (1...1024).contains(nonce.count), ciphertext.count <= 16_384 else {
            throw NTSError(.unencodable, "nonce of \(nonce.count) or ciphertext of \(ciphertext.count) bytes")
        }
        var body: [UInt8] = []
        WireBytes.append(UInt16(nonce.count), to: &body)
        WireBytes.append(UInt16(ciphertext.count), to: &body)
        body += nonce + Array(repeating: 0, count: WireBytes.padded4(nonce.count) - nonce.count)
        body +=
            ciphertext + Array(repeating: 0, count: WireBytes.padded4(ciphertext.count) - ciphertext.count)
        let nonceSpace = WireBytes.padded4(nonce.count)
        if nonceSpace < Self.requiredNonceSpace {
            body += Array(repeating: 0, count: Self.requiredNonceSpace - nonceSpace)
        }
        return try NTPExtensionField(type: .authenticator, body: body)
    }
}

/// The extension fields inside a decrypted authenticator (RFC 8915 §5.6): in a server reply, the
/// NTS Cookie fields that replace the one spent.
package enum NTSEncryptedFields {
    /// The cap on the number of encrypted fields.
    package static let maximumFields = 32

    /// Parses decrypted plaintext into extension fields (RFC 7822 framing: lengths multiples of 4,
    /// at least 16, within the bytes; nothing left over).
    package static func parse(_ plaintext: [UInt8]) throws(NTSError) -> [NTPExtensionField] {
        try NTPExtensionFieldFraming.split(plaintext, from: 0, maximumFields: maximumFields).map(\.field)
    }

    /// The cookies among `fields`: the bodies of the NTS Cookie fields, in order. A cookie's padding
    /// cannot be told from the cookie, so the whole body is the cookie; sent back in a Cookie field
    /// it yields the same bytes.
    package static func cookies(in fields: [NTPExtensionField]) -> [[UInt8]] {
        fields.filter { $0.type == .cookie }.map(\.body)
    }

    /// The cookies in decrypted `plaintext`, framed as ``parse(_:)`` checks it: what
    /// `cookies(in: parse(plaintext))` gives, with no field array (``forEachCookie(inPlaintext:_:)``).
    package static func cookies(inPlaintext plaintext: [UInt8]) throws(NTSError) -> [[UInt8]] {
        var cookies: [[UInt8]] = []
        var failure: NTSError?
        plaintext.withUnsafeBytes { plaintext in
            do throws(NTSError) {
                try forEachCookie(inPlaintext: plaintext) { cookies.append(Array($0)) }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return cookies
    }

    /// Calls `body` with each cookie of a decrypted `plaintext`, where it lies, in order; only once
    /// the whole plaintext is framed as ``parse(_:)`` checks it, so a malformed one yields none.
    package static func forEachCookie(
        inPlaintext plaintext: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(NTSError) {
        try NTPExtensionFieldFraming.forEachField(plaintext, from: 0, maximumFields: maximumFields) {
            _, _, _ in
        }
        try NTPExtensionFieldFraming.forEachField(plaintext, from: 0, maximumFields: maximumFields) {
            offset, type, end in
            if type == .cookie {
                body(
                    UnsafeRawBufferPointer(rebasing: plaintext[(offset + NTPExtensionField.headerSize)..<end])
                )
            }
        }
    }

    /// The plaintext carrying `cookies` as NTS Cookie fields (the server side).
    package static func encode(cookies: [[UInt8]]) throws(NTSError) -> [UInt8] {
        var bytes: [UInt8] = []
        for cookie in cookies {
            bytes += try NTPExtensionField(type: .cookie, body: cookie).encoded()
        }
        return bytes
    }
}
