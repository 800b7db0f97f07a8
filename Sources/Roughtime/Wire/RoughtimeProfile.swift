/// What differs between the Roughtime versions this client speaks, in one place.
///
/// | | RFC 10049 (1) | drafts 12–15 | drafts 10–11 | Google |
/// |---|---|---|---|---|
/// | framing (`ROUGHTIM` + length) | yes | yes | yes | no |
/// | nonce, hash length | 32, SHA-512/32 | 32, SHA-512/32 | 32, SHA-512/32 | 64, SHA-512 |
/// | Merkle leaf hashes | the request packet | the request packet | the nonce | the nonce |
/// | `VER` of the reply | in `SREP` (signed) | in `SREP` | top level | none |
/// | `TYPE` required | yes | from 14 | no | no |
/// | times | seconds | seconds | seconds | microseconds |
/// | response context | `Roughtime v1 response signature` | `RoughTime v1 response signature` | same | same |
/// | delegation context | `Roughtime v1 delegation signature` | `RoughTime v1 delegation signature` | `…signature--` | `…signature--` |
///
/// RFC 10049 changed the context strings' case from draft 19 (`RoughTime` → `Roughtime`); the
/// drafts before 12 and Google end the delegation context with `--`. Every context string ends
/// with its zero byte. The drafts' text of the Merkle check has its two cases the wrong way round;
/// every implementation (and RFC 10049) hashes `h || node` when the index bit is 0.
package struct RoughtimeProfile: Hashable, Sendable {
    /// The version.
    package let version: RoughtimeVersion

    /// The profile of `version`, or nil for a version this client does not speak.
    package init?(_ version: RoughtimeVersion) {
        guard version.isSupported else { return nil }
        self.version = version
    }

    /// Whether packets carry the `ROUGHTIM` framing (all but Google).
    package var isFramed: Bool { version != .google }

    /// The nonce's length: 32 bytes, 64 for Google.
    package var nonceLength: Int { isFramed ? 32 : 64 }

    /// The length of Merkle tree hashes (`ROOT`, `PATH` entries): SHA-512 truncated to 32 bytes,
    /// the whole 64 for Google.
    package var hashLength: Int { isFramed ? 32 : 64 }

    /// Whether a Merkle leaf hashes the whole request packet (RFC and drafts from 12 on) rather than
    /// the nonce.
    package var leafCoversRequest: Bool {
        version == .rfc || (version.draftNumber ?? 0) >= 12
    }

    /// Whether the reply's version is in the signed `SREP` (with `VERS`), rather than a top-level
    /// `VER` (drafts 10–11) or nowhere (Google).
    package var hasSignedVersion: Bool { leafCoversRequest }

    /// Whether a reply must carry `TYPE` (RFC and drafts from 14 on).
    package var requiresType: Bool {
        version == .rfc || (version.draftNumber ?? 0) >= 14
    }

    /// Whether `MIDP`, `RADI`, `MINT` and `MAXT` count microseconds (Google) rather than seconds.
    package var countsMicroseconds: Bool { !isFramed }

    /// The tag requests are padded with: `ZZZZ`, or `PAD\xff` for Google.
    package var paddingTag: RoughtimeTag { isFramed ? .zzzz : .googlePadding }

    /// The context string of the response signature, with its zero byte.
    package var responseContext: [UInt8] {
        Array((version == .rfc ? "Roughtime v1 response signature" : "RoughTime v1 response signature").utf8)
            + [0]
    }

    /// The context string of the delegation signature, with its zero byte.
    package var delegationContext: [UInt8] {
        let text: String
        if version == .rfc {
            text = "Roughtime v1 delegation signature"
        } else if hasSignedVersion {
            text = "RoughTime v1 delegation signature"
        } else {
            text = "RoughTime v1 delegation signature--"
        }
        return Array(text.utf8) + [0]
    }
}
