import NetClockPlatform
import NetClockTLS
import TimeValues

/// A Roughtime reply that passed every check of RFC 10049 §5.4 (or its draft's equivalent) for one
/// request and one long-term key: what the server signed.
///
/// Validity proves that the server, holding the key, signed `midpoint ± radius` after it received
/// the request; it does not prove that the time is right. That takes other servers.
package struct RoughtimeResponse: Hashable, Sendable {
    /// The version the reply speaks (one the request offered).
    package let version: RoughtimeVersion
    /// The signed midpoint (`MIDP`): the server's time when it processed the request.
    package let midpoint: UnixTime
    /// The signed radius (`RADI`): the server guarantees the true time was within
    /// `midpoint ± radius` then.
    package let radius: Duration
    /// `MIDP` and `RADI` as on the wire (seconds; microseconds for Google), for malfeasance checks
    /// done the way other implementations do them.
    package let wireMidpoint: UInt64, wireRadius: UInt32
    /// The delegation's validity (`MINT`, `MAXT`).
    package let delegationStart: UnixTime, delegationEnd: UnixTime
    /// The delegated key (`PUBK`).
    package let delegatedKey: [UInt8]
    /// The request's leaf index (`INDX`) and the number of hashes in `PATH`: more than one request
    /// shared the signature when `pathLength > 0`.
    package let index: UInt32, pathLength: Int
    /// The versions the server says it supports (`VERS`), when the version signs them.
    package let serverVersions: [RoughtimeVersion]
    /// The reply datagram, as received (a malfeasance report carries it).
    package let bytes: [UInt8]

    /// Verifies `datagram` as the reply to `request` from the server whose long-term key is
    /// `publicKey`.
    ///
    /// The checks run cheapest first, so that a spoofed or replayed datagram costs no signature
    /// verification: size (no amplification), framing and message structure, nonce, version and
    /// `TYPE`, the signed response's fields, the Merkle proof, the delegation's signature by the
    /// long-term key, the midpoint inside the delegation, and the response's signature by the
    /// delegated key.
    /// - Throws: ``RoughtimeError`` with the code of the first check that fails.
    package init(verifying datagram: [UInt8], for request: RoughtimeRequest, publicKey: [UInt8])
        throws(RoughtimeError)
    {
        guard datagram.count <= request.bytes.count else {
            throw RoughtimeError(
                .amplification, "a \(datagram.count)-byte reply to a \(request.bytes.count)-byte request")
        }
        let message: RoughtimeMessage
        if request.isGoogle {
            message = try RoughtimeMessage(parsing: datagram, what: "reply")
        } else {
            message = try RoughtimeMessage(parsing: try RoughtimePacket.message(in: datagram), what: "reply")
        }
        guard message.value(.nonc) == request.nonce else {
            throw RoughtimeError(.nonceMismatch, "the reply's NONC is not this request's nonce")
        }
        let signedBytes = try message.required(.srep, in: "reply")
        let signed = try RoughtimeMessage(parsing: signedBytes, what: "SREP")
        let version = try Self.version(of: message, signed: signed, request: request)
        guard let profile = RoughtimeProfile(version) else {
            throw RoughtimeError(.versionNotOffered, "version \(version) is not supported")
        }
        if let type = message.value(.type) {
            guard type == RoughtimeMessage.bytes(UInt32(1)) else {
                throw RoughtimeError(
                    .wrongType,
                    "TYPE is \(type.count == 4 ? "\(RoughtimeMessage.uint32(type, at: 0))" : "\(type.count) bytes"), not 1"
                )
            }
        } else if profile.requiresType {
            throw RoughtimeError(.missingType, "no TYPE in a \(version) reply")
        }

        let root = try signed.required(.root, length: profile.hashLength, in: "SREP")
        let wireMidpoint = try signed.uint64(.midp, in: "SREP")
        let wireRadius = try signed.uint32(.radi, in: "SREP")
        guard wireRadius != 0 else { throw RoughtimeError(.zeroRadius, "RADI is zero") }
        var serverVersions: [RoughtimeVersion] = []
        if profile.hasSignedVersion {
            serverVersions = try Self.serverVersions(in: signed, version: version)
        }

        let index = try message.uint32(.indx, in: "reply")
        let path = try message.required(.path, in: "reply")
        let leaf = try RoughtimeMerkle.leaf(
            profile.leafCoversRequest ? request.bytes : request.nonce, profile: profile)
        guard try RoughtimeMerkle.root(leaf: leaf, index: index, path: path, profile: profile) == root else {
            throw RoughtimeError(
                .merklePathMismatch, "the request's leaf, INDX \(index) and PATH do not give ROOT")
        }

        let certificate = try RoughtimeMessage(
            parsing: try message.required(.cert, in: "reply"), what: "CERT")
        let delegationSignature = try certificate.required(.sig, length: Ed25519.signatureLength, in: "CERT")
        let delegationBytes = try certificate.required(.dele, in: "CERT")
        let delegation = try RoughtimeMessage(parsing: delegationBytes, what: "DELE")
        let delegatedKey = try delegation.required(.pubk, length: Ed25519.publicKeyLength, in: "DELE")
        let start = try delegation.uint64(.mint, in: "DELE")
        let end = try delegation.uint64(.maxt, in: "DELE")
        let responseSignature = try message.required(.sig, length: Ed25519.signatureLength, in: "reply")
        guard
            Ed25519.isValidSignature(
                delegationSignature, of: profile.delegationContext, delegationBytes, publicKey: publicKey)
        else {
            throw RoughtimeError(
                .badDelegationSignature, "CERT's signature does not verify with the server's key")
        }
        guard start <= end else {
            throw RoughtimeError(.invalidDelegation, "MINT \(start) is after MAXT \(end)")
        }
        guard wireMidpoint <= end else {
            throw RoughtimeError(
                .delegationExpired, "MIDP \(wireMidpoint) is after the delegation's MAXT \(end)")
        }
        guard wireMidpoint >= start else {
            throw RoughtimeError(
                .delegationNotYetValid, "MIDP \(wireMidpoint) is before the delegation's MINT \(start)")
        }
        guard
            Ed25519.isValidSignature(
                responseSignature, of: profile.responseContext, signedBytes, publicKey: delegatedKey)
        else {
            throw RoughtimeError(
                .badResponseSignature, "SREP's signature does not verify with the delegated key")
        }

        self.version = version
        self.midpoint = try Self.time(wireMidpoint, profile: profile)
        self.radius = profile.countsMicroseconds ? .microseconds(wireRadius) : .seconds(wireRadius)
        self.wireMidpoint = wireMidpoint
        self.wireRadius = wireRadius
        self.delegationStart = try Self.time(start, profile: profile)
        self.delegationEnd = try Self.time(end, profile: profile)
        self.delegatedKey = delegatedKey
        self.index = index
        self.pathLength = path.count / profile.hashLength
        self.serverVersions = serverVersions
        self.bytes = datagram
    }

    /// The reply's version: the signed `VER` in `SREP`, else (drafts 10–11 only) the top-level
    /// one, which must then agree; Google for a Google request. It must be one the request offered.
    private static func version(
        of message: RoughtimeMessage, signed: RoughtimeMessage, request: RoughtimeRequest
    ) throws(RoughtimeError) -> RoughtimeVersion {
        if request.isGoogle { return .google }
        var top: RoughtimeVersion?
        if message.value(.ver) != nil {
            top = RoughtimeVersion(rawValue: try message.uint32(.ver, in: "reply"))
        }
        let version: RoughtimeVersion
        if signed.value(.ver) != nil {
            version = RoughtimeVersion(rawValue: try signed.uint32(.ver, in: "SREP"))
            if let top, top != version {
                throw RoughtimeError(
                    .versionConflict, "the top-level VER \(top) contradicts the signed \(version)")
            }
        } else if let top {
            guard let profile = RoughtimeProfile(top), !profile.hasSignedVersion else {
                throw RoughtimeError(
                    .versionNotOffered, "version \(top) must be signed in SREP, not sent beside it")
            }
            version = top
        } else {
            throw RoughtimeError(.missingVersion, "the reply names no version")
        }
        guard request.offeredVersions.contains(version) else {
            throw RoughtimeError(
                .versionNotOffered,
                "the reply speaks \(version); the request offered \(request.offeredVersions.map(\.description).joined(separator: ", "))"
            )
        }
        return version
    }

    /// `VERS`: 1 to 32 versions, strictly ascending, containing `version`.
    private static func serverVersions(in signed: RoughtimeMessage, version: RoughtimeVersion)
        throws(RoughtimeError)
        -> [RoughtimeVersion]
    {
        let bytes = try signed.required(.vers, in: "SREP")
        guard !bytes.isEmpty, bytes.count % 4 == 0, bytes.count <= 128 else {
            throw RoughtimeError(.badVersionList, "VERS is \(bytes.count) bytes (1 to 32 versions of 4)")
        }
        let versions = stride(from: 0, to: bytes.count, by: 4).map {
            RoughtimeVersion(rawValue: RoughtimeMessage.uint32(bytes, at: $0))
        }
        guard zip(versions, versions.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw RoughtimeError(.badVersionList, "VERS is not strictly ascending")
        }
        guard versions.contains(version) else {
            throw RoughtimeError(.badVersionList, "VERS does not contain the reply's version \(version)")
        }
        return versions
    }

    /// A wire timestamp as an instant: seconds (microseconds for Google) since the Unix epoch.
    private static func time(_ value: UInt64, profile: RoughtimeProfile) throws(RoughtimeError) -> UnixTime {
        guard value < 1 << 62 else {
            throw RoughtimeError(.timeOutOfRange, "timestamp \(value) is out of range")
        }
        let count = Int64(value)
        return profile.countsMicroseconds
            ? UnixTime(sinceEpoch: .microseconds(count)) : UnixTime(seconds: count)
    }
}
