/// A Roughtime request as sent: the datagram, its message padded to 1024 bytes, and what a reply
/// to it must match (its nonce, the versions it offered).
///
/// A framed request (RFC 10049 and the drafts) carries `VER` (the offered versions, ascending),
/// `SRV` (`H(0xff || public key)`, when the key is known), `NONC` (32 bytes), `TYPE` (0) and `ZZZZ`
/// padding, inside the `ROUGHTIM` framing. `TYPE` is sent to every framed version: the drafts
/// before 14 ignore tags they do not know. A Google-Roughtime request is a bare message of `NONC`
/// (64 bytes) and `PAD\xff`.
package struct RoughtimeRequest: Hashable, Sendable {
    /// The bytes to send: 1036 (a 1024-byte message in the 12-byte framing), 1024 for Google.
    package let bytes: [UInt8]
    /// The nonce the reply must echo.
    package let nonce: [UInt8]
    /// The versions offered, ascending; `[.google]` for a Google-Roughtime request.
    package let offeredVersions: [RoughtimeVersion]

    /// Builds a request.
    ///
    /// - Parameters:
    ///   - nonce: 32 bytes (64 for Google-Roughtime): random, or chained from a previous reply.
    ///   - versions: the versions to offer: any of ``RoughtimeVersion/supported`` but Google, or
    ///     Google alone.
    ///   - publicKey: the server's long-term key, for `SRV` (framed versions only).
    /// - Throws: `invalid_server` for an empty or unsupported version list, Google mixed with other
    ///   versions, more than 32 versions, or a nonce of the wrong length.
    package init(nonce: [UInt8], versions: [RoughtimeVersion], publicKey: [UInt8]?) throws(RoughtimeError) {
        let offered = Array(Set(versions)).sorted()
        guard !offered.isEmpty, offered.count <= 32 else {
            throw RoughtimeError(.invalidServer, "a request offers 1 to 32 versions, not \(offered.count)")
        }
        if let unsupported = offered.first(where: { !$0.isSupported }) {
            throw RoughtimeError(.invalidServer, "version \(unsupported) is not supported")
        }
        let isGoogle = offered.contains(.google)
        guard !isGoogle || offered.count == 1 else {
            throw RoughtimeError(.invalidServer, "Google-Roughtime cannot be offered with other versions")
        }
        let nonceLength = isGoogle ? 64 : 32
        guard nonce.count == nonceLength else {
            throw RoughtimeError(.invalidServer, "a nonce is \(nonceLength) bytes here, not \(nonce.count)")
        }
        var entries: [RoughtimeMessage.Entry] = [RoughtimeMessage.Entry(.nonc, nonce)]
        if !isGoogle {
            entries.append(
                RoughtimeMessage.Entry(.ver, offered.flatMap { RoughtimeMessage.bytes($0.rawValue) }))
            entries.append(RoughtimeMessage.Entry(.type, RoughtimeMessage.bytes(UInt32(0))))
            if let publicKey {
                entries.append(RoughtimeMessage.Entry(.srv, try Self.serverHash(publicKey)))
            }
        }
        // The message (not the framed packet) is padded to 1024 bytes, as in RFC 10049's example
        // request (a 1036-byte packet): a server that counts either way takes it. The header grows
        // by 8 bytes with the padding tag: 4 for its tag, 4 for its offset.
        let unpadded = RoughtimeMessage(entries).encoded.count + 8
        let padding = [UInt8](repeating: 0, count: max(0, RoughtimePacket.requestSize - unpadded))
        entries.append(RoughtimeMessage.Entry(isGoogle ? .googlePadding : .zzzz, padding))
        let message = RoughtimeMessage(entries).encoded
        self.bytes = isGoogle ? message : RoughtimePacket.frame(message)
        self.nonce = nonce
        self.offeredVersions = offered
    }

    /// `SRV`'s value for `publicKey`: `H(0xff || public key)`, SHA-512 truncated to 32 bytes.
    package static func serverHash(_ publicKey: [UInt8]) throws(RoughtimeError) -> [UInt8] {
        try RoughtimeMerkle.sha512([0xFF], publicKey, length: 32)
    }

    /// Whether this is a Google-Roughtime request.
    package var isGoogle: Bool { offeredVersions == [.google] }

    /// Reads a request someone sent (the fake server's side, and a malfeasance report's requests):
    /// framed with `VER` and a 32-byte `NONC`, or a bare Google-Roughtime message with a 64-byte
    /// `NONC`. The offered versions are kept as sent, unknown ones included.
    /// - Throws: the framing and message errors, `missing_tag` without `VER` or `NONC`,
    ///   `truncated_tag`/`oversized_tag` for a nonce of the wrong length or a `VER` that is not a
    ///   list of `uint32`, `bad_version_list` for a framed request that offers Google-Roughtime.
    package init(parsing datagram: [UInt8]) throws(RoughtimeError) {
        if RoughtimePacket.isFramed(datagram) {
            let message = try RoughtimeMessage(
                parsing: try RoughtimePacket.message(in: datagram), what: "request")
            let versions = try message.required(.ver, in: "request")
            guard !versions.isEmpty, versions.count % 4 == 0 else {
                throw RoughtimeError(
                    .truncatedTag, "VER in request is \(versions.count) bytes, not a list of uint32")
            }
            let offered = stride(from: 0, to: versions.count, by: 4).map {
                RoughtimeVersion(rawValue: RoughtimeMessage.uint32(versions, at: $0))
            }
            // Google-Roughtime is never framed (its requests are bare messages with a 64-byte
            // nonce): a framed request that offers its number is malformed, not a Google request.
            guard !offered.contains(.google) else {
                throw RoughtimeError(
                    .badVersionList, "a framed request offers Google-Roughtime, which is never framed")
            }
            self.offeredVersions = offered
            self.nonce = try message.required(.nonc, length: 32, in: "request")
        } else {
            let message = try RoughtimeMessage(parsing: datagram, what: "request")
            self.offeredVersions = [.google]
            self.nonce = try message.required(.nonc, length: 64, in: "request")
        }
        self.bytes = datagram
    }
}
