/// Why a Roughtime reply was refused, or why a query, an ecosystem file or a malfeasance report
/// failed: a stable snake_case ``code`` for programs and a ``reason`` for people. Compare codes,
/// not reasons; errors are equal when their codes are.
package struct RoughtimeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier for a kind of failure. New codes may be added.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The identifier, e.g. `bad_response_signature`.
        package let rawValue: String

        /// Creates a code from its identifier.
        package init(rawValue: String) { self.rawValue = rawValue }

        /// The identifier.
        package var description: String { rawValue }

        // MARK: Framing and tagged messages

        /// The datagram does not start with `ROUGHTIM` (a framed version was asked for).
        package static let badFraming = Code(rawValue: "bad_framing")
        /// The framing's length field does not match the bytes that follow it.
        package static let framingLengthMismatch = Code(rawValue: "framing_length_mismatch")
        /// A message ends before its header or a value it announces.
        package static let truncatedMessage = Code(rawValue: "truncated_message")
        /// A message has no (tag, value) pairs.
        package static let emptyMessage = Code(rawValue: "empty_message")
        /// An offset or the values section is not a multiple of four bytes.
        package static let misalignedMessage = Code(rawValue: "misaligned_message")
        /// Offsets decrease, or one points past the end of the values section.
        package static let badOffsets = Code(rawValue: "bad_offsets")
        /// Tags are not in ascending order.
        package static let unsortedTags = Code(rawValue: "unsorted_tags")
        /// A tag appears twice in one message.
        package static let duplicateTag = Code(rawValue: "duplicate_tag")
        /// A required tag is absent.
        package static let missingTag = Code(rawValue: "missing_tag")
        /// A tag's value is shorter than its type (a 60-byte signature, a 3-byte radius).
        package static let truncatedTag = Code(rawValue: "truncated_tag")
        /// A tag's value is longer than its type.
        package static let oversizedTag = Code(rawValue: "oversized_tag")

        // MARK: The reply as a whole

        /// The reply is larger than the request: a server must never amplify (RFC 10049 §9.7).
        package static let amplification = Code(rawValue: "reply_larger_than_request")
        /// The reply's nonce is not the one this request sent: a reply to someone else, a replay.
        package static let nonceMismatch = Code(rawValue: "nonce_mismatch")
        /// The reply names no version (no `VER` in `SREP`, nor at the top level where drafts 10–11
        /// put it).
        package static let missingVersion = Code(rawValue: "missing_version")
        /// The reply's version is not one the request offered (or a top-level `VER` where the
        /// version must be signed).
        package static let versionNotOffered = Code(rawValue: "version_not_offered")
        /// The unsigned top-level `VER` contradicts the signed one in `SREP`.
        package static let versionConflict = Code(rawValue: "version_conflict")
        /// `VERS` is not a sorted list of at most 32 distinct versions containing `VER`.
        package static let badVersionList = Code(rawValue: "bad_version_list")
        /// `TYPE` is absent where the version requires it.
        package static let missingType = Code(rawValue: "missing_type")
        /// `TYPE` is not 1 (response).
        package static let wrongType = Code(rawValue: "wrong_type")
        /// `RADI` is zero, which no server may claim.
        package static let zeroRadius = Code(rawValue: "zero_radius")
        /// A timestamp is beyond what this client represents (more than 2^62 seconds).
        package static let timeOutOfRange = Code(rawValue: "time_out_of_range")

        // MARK: Proofs and signatures

        /// `PATH` is not a whole number of hashes, or longer than 32 of them.
        package static let badPath = Code(rawValue: "bad_path")
        /// The Merkle root computed from the request, `INDX` and `PATH` is not the signed `ROOT`.
        package static let merklePathMismatch = Code(rawValue: "merkle_path_mismatch")
        /// `INDX` has bits left over after the path is used up.
        package static let merkleIndexOutOfRange = Code(rawValue: "merkle_index_out_of_range")
        /// The delegation (`CERT`'s `SIG` over `DELE`) does not verify with the long-term key.
        package static let badDelegationSignature = Code(rawValue: "bad_delegation_signature")
        /// The response signature (`SIG` over `SREP`) does not verify with the delegated key.
        package static let badResponseSignature = Code(rawValue: "bad_response_signature")
        /// `MINT` is after `MAXT`: the delegation is valid at no time.
        package static let invalidDelegation = Code(rawValue: "invalid_delegation")
        /// The signed midpoint is after the delegation's `MAXT`: the key signed after it expired.
        package static let delegationExpired = Code(rawValue: "delegation_expired")
        /// The signed midpoint is before the delegation's `MINT`.
        package static let delegationNotYetValid = Code(rawValue: "delegation_not_yet_valid")

        // MARK: Exchanges and queries

        /// No valid reply arrived before the deadline.
        package static let timedOut = Code(rawValue: "timed_out")
        /// ICMP port unreachable, a failed system call or resolution.
        package static let transport = Code(rawValue: "transport")
        /// The caller gave up.
        package static let cancelled = Code(rawValue: "cancelled")
        /// The server is configured wrongly: no address, a public key that is not 32 bytes, a
        /// version this client does not speak, Google-Roughtime offered with other versions.
        package static let invalidServer = Code(rawValue: "invalid_server")
        /// No server was given.
        package static let noServers = Code(rawValue: "no_servers")
        /// Too few servers answered validly for a majority.
        package static let notEnoughReplies = Code(rawValue: "not_enough_replies")
        /// The valid replies do not contain a majority whose intervals overlap.
        package static let noMajority = Code(rawValue: "no_majority")
        /// OpenSSL failed to hash or verify (a broken installation; never the input's fault).
        package static let cryptoFailure = Code(rawValue: "crypto_failure")

        // MARK: Files

        /// An ecosystem (server list) file that cannot be used.
        package static let invalidEcosystem = Code(rawValue: "invalid_ecosystem")
        /// A malfeasance report that is malformed, or whose entries do not verify or chain.
        package static let invalidReport = Code(rawValue: "invalid_report")
    }

    /// The kind of failure.
    package let code: Code
    /// What went wrong, for people.
    package let reason: String

    /// Creates an error.
    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    package var description: String { "\(code): \(reason)" }

    /// Errors are equal when their codes are: reasons are for people and may change.
    package static func == (lhs: RoughtimeError, rhs: RoughtimeError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
