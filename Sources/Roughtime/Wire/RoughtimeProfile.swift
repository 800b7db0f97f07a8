/// What differs between the Roughtime versions this client speaks, in one place: framing, nonce and
/// hash lengths, what the Merkle leaf hashes, where `VER` is, whether `TYPE` is required, the unit
/// of times and the signature context strings (each ending with its zero byte). The table of them:
/// the ThreatModel article, "Roughtime" ("Versions").
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
