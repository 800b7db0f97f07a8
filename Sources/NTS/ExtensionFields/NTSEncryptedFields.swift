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

    /// The plaintext carrying `cookies` as NTS Cookie fields (the server side).
    package static func encode(cookies: [[UInt8]]) throws(NTSError) -> [UInt8] {
        var bytes: [UInt8] = []
        for cookie in cookies {
            bytes += try NTPExtensionField(type: .cookie, body: cookie).encoded()
        }
        return bytes
    }
}
