import NetClockPlatform

/// Why a Roughtime reply was refused, or why a query, an ecosystem file or a malfeasance report
/// failed: a stable snake_case ``RoughtimeErrorCode`` for programs and a reason for people. Compare
/// codes, not reasons; errors are equal when their codes are.
package typealias RoughtimeError = CodedError<RoughtimeErrorCode>

/// What kind of failure a ``RoughtimeError`` is. New codes may be added.
package struct RoughtimeErrorCode: ErrorCode {
    /// The identifier, e.g. `bad_response_signature`.
    package let rawValue: String

    /// Creates a code from its identifier.
    package init(rawValue: String) { self.rawValue = rawValue }

    // MARK: Framing and tagged messages

    /// The datagram does not start with `ROUGHTIM` (a framed version was asked for).
    package static let badFraming = Self(rawValue: "bad_framing")
    /// The framing's length field does not match the bytes that follow it.
    package static let framingLengthMismatch = Self(rawValue: "framing_length_mismatch")
    /// A message ends before its header or a value it announces.
    package static let truncatedMessage = Self(rawValue: "truncated_message")
    /// A message has no (tag, value) pairs.
    package static let emptyMessage = Self(rawValue: "empty_message")
    /// An offset or the values section is not a multiple of four bytes.
    package static let misalignedMessage = Self(rawValue: "misaligned_message")
    /// Offsets decrease, or one points past the end of the values section.
    package static let badOffsets = Self(rawValue: "bad_offsets")
    /// Tags are not in ascending order.
    package static let unsortedTags = Self(rawValue: "unsorted_tags")
    /// A tag appears twice in one message.
    package static let duplicateTag = Self(rawValue: "duplicate_tag")
    /// A required tag is absent.
    package static let missingTag = Self(rawValue: "missing_tag")
    /// A tag's value is shorter than its type (a 60-byte signature, a 3-byte radius).
    package static let truncatedTag = Self(rawValue: "truncated_tag")
    /// A tag's value is longer than its type.
    package static let oversizedTag = Self(rawValue: "oversized_tag")

    // MARK: The reply as a whole

    /// The reply is larger than the request: a server must never amplify (RFC 10049 §9.7).
    package static let amplification = Self(rawValue: "reply_larger_than_request")
    /// The reply's nonce is not the one this request sent: a reply to someone else, a replay.
    package static let nonceMismatch = Self(rawValue: "nonce_mismatch")
    /// The reply names no version (no `VER` in `SREP`, nor at the top level where drafts 10–11
    /// put it).
    package static let missingVersion = Self(rawValue: "missing_version")
    /// The reply's version is not one the request offered (or a top-level `VER` where the
    /// version must be signed).
    package static let versionNotOffered = Self(rawValue: "version_not_offered")
    /// The unsigned top-level `VER` contradicts the signed one in `SREP`.
    package static let versionConflict = Self(rawValue: "version_conflict")
    /// `VERS` is not a sorted list of at most 32 distinct versions containing `VER`.
    package static let badVersionList = Self(rawValue: "bad_version_list")
    /// `TYPE` is absent where the version requires it.
    package static let missingType = Self(rawValue: "missing_type")
    /// `TYPE` is not 1 (response).
    package static let wrongType = Self(rawValue: "wrong_type")
    /// `RADI` is zero, which no server may claim.
    package static let zeroRadius = Self(rawValue: "zero_radius")
    /// A timestamp is beyond what this client represents (more than 2^62 seconds).
    package static let timeOutOfRange = Self(rawValue: "time_out_of_range")

    // MARK: Proofs and signatures

    /// `PATH` is not a whole number of hashes, or longer than 32 of them.
    package static let badPath = Self(rawValue: "bad_path")
    /// The Merkle root computed from the request, `INDX` and `PATH` is not the signed `ROOT`.
    package static let merklePathMismatch = Self(rawValue: "merkle_path_mismatch")
    /// `INDX` has bits left over after the path is used up.
    package static let merkleIndexOutOfRange = Self(rawValue: "merkle_index_out_of_range")
    /// The delegation (`CERT`'s `SIG` over `DELE`) does not verify with the long-term key.
    package static let badDelegationSignature = Self(rawValue: "bad_delegation_signature")
    /// The response signature (`SIG` over `SREP`) does not verify with the delegated key.
    package static let badResponseSignature = Self(rawValue: "bad_response_signature")
    /// `MINT` is after `MAXT`: the delegation is valid at no time.
    package static let invalidDelegation = Self(rawValue: "invalid_delegation")
    /// The signed midpoint is after the delegation's `MAXT`: the key signed after it expired.
    package static let delegationExpired = Self(rawValue: "delegation_expired")
    /// The signed midpoint is before the delegation's `MINT`.
    package static let delegationNotYetValid = Self(rawValue: "delegation_not_yet_valid")

    // MARK: Exchanges and queries

    /// No valid reply arrived before the deadline.
    package static let timedOut = Self(rawValue: "timed_out")
    /// ICMP port unreachable, a failed system call or resolution.
    package static let transport = Self(rawValue: "transport")
    /// The caller gave up.
    package static let cancelled = Self(rawValue: "cancelled")
    /// The server is configured wrongly: no address, a public key that is not 32 bytes, a
    /// version this client does not speak, Google-Roughtime offered with other versions.
    package static let invalidServer = Self(rawValue: "invalid_server")
    /// No server was given.
    package static let noServers = Self(rawValue: "no_servers")
    /// Too few servers answered validly for a majority.
    package static let notEnoughReplies = Self(rawValue: "not_enough_replies")
    /// The valid replies do not contain a majority whose intervals overlap.
    package static let noMajority = Self(rawValue: "no_majority")
    /// OpenSSL failed to hash or verify (a broken installation; never the input's fault).
    package static let cryptoFailure = Self(rawValue: "crypto_failure")

    // MARK: Files

    /// An ecosystem (server list) file that cannot be used.
    package static let invalidEcosystem = Self(rawValue: "invalid_ecosystem")
    /// A malfeasance report that is malformed, or whose entries do not verify or chain.
    package static let invalidReport = Self(rawValue: "invalid_report")
}
