extension FakeRoughtimeServer {
    /// How a fake Roughtime server misbehaves. Every hostile case breaks exactly one rule, so that a
    /// strict client refuses it for one specific reason; everything else stays correct (validly
    /// signed, right nonce, right tree). A validly signed lie is not a behaviour: it is
    /// ``Configuration/offset``, which no single reply can betray.
    package enum Behaviour: Hashable, Sendable, CaseIterable {
        /// A correct server.
        case normal
        /// No reply at all.
        case silent
        /// The response signature (`SIG` over `SREP`) has one bit flipped.
        case badResponseSignature
        /// The delegation signature (`CERT`'s `SIG` over `DELE`) has one bit flipped.
        case badDelegationSignature
        /// The delegation (validly signed) ended an hour before the signed midpoint.
        case expiredDelegation
        /// The delegation (validly signed) begins an hour after the signed midpoint.
        case midpointOutsideDelegation
        /// The Merkle proof is wrong: a path hash has a bit flipped, or with an empty path the signed
        /// root is that of another leaf.
        case wrongMerklePath
        /// `NONC` is random (the tree and signatures are right for the real request).
        case foreignNonce
        /// Every request is answered with the first reply this server ever sent.
        case replay
        /// The reply carries an extra 1100-byte tag, so it is larger than the request.
        case oversizedReply
        /// 400 random bytes instead of a reply.
        case garbage
        /// The reply's last 8 bytes are cut off (the framing's length no longer matches).
        case truncatedReply
        /// The signed version is draft 99 (0x80000063), which no request offers.
        case wrongVersion
        /// `RADI` is zero.
        case zeroRadius
        /// No `TYPE` in the reply.
        case missingType
        /// `TYPE` is 0 (a request's).
        case wrongType
        /// The response signature is cut to 60 bytes.
        case truncatedSignature
        /// The top-level tags are not in ascending order (the first two swapped).
        case unsortedTags
        /// The top-level `INDX` tag appears twice.
        case duplicateTag

        /// The hostile cases, each refused with its own reason.
        package static var hostile: [Behaviour] { allCases.filter { $0 != .normal } }
    }
}
