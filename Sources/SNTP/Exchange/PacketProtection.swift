import NetClockPlatform

/// Authenticates the requests and replies of one burst (NTS, RFC 8915 §5), so that the exchange,
/// its validation and its timestamps stay the SNTP module's while the cryptography lives elsewhere.
///
/// A burst calls ``protect(_:)`` for each request and, for every datagram whose header answers the
/// request in flight (its origin echoes the request's nonce), ``verify(reply:)`` or, for a
/// Kiss-o'-Death, ``verify(kissOfDeath:code:)``. A datagram that fails is discarded like a spoofed
/// one and the wait goes on; it never becomes a sample. A value: the burst core owns its copy.
package protocol PacketProtection: Sendable {
    /// The wire bytes of a request with this 48-byte header, protected.
    /// - Throws: the reason no request can be sent (e.g. no cookie left); the burst ends with it.
    mutating func protect(_ header: NTPPacket) throws(RejectionReason) -> [UInt8]

    /// Checks a reply to the request in flight (every plain-SNTP check of its header passed).
    /// - Throws: why the datagram must be discarded (unauthenticated, tampered, downgraded).
    mutating func verify(reply datagram: [UInt8]) throws(RejectionReason)

    /// Checks a Kiss-o'-Death answering the request in flight; returning accepts it (the burst then
    /// ends with it).
    /// - Throws: why it must be discarded, as for an unauthenticated kiss an attacker could forge.
    mutating func verify(kissOfDeath datagram: [UInt8], code: NTPPacket.KissCode) throws(RejectionReason)
}

/// Why a ``PacketProtection`` refused a datagram or could not protect a request (carried by
/// ``RejectionReason/unauthenticated(_:)``): a ``ProtectionFailureCode`` and a reason.
package typealias ProtectionFailure = CodedError<ProtectionFailureCode>

/// What kind of failure a ``ProtectionFailure`` is: an open set, whose codes the protection's
/// module declares (NTS's start with `nts_`, e.g. `nts_bad_authenticator`).
package struct ProtectionFailureCode: ErrorCode {
    /// The identifier.
    package let rawValue: String

    /// The code `rawValue`.
    package init(rawValue: String) { self.rawValue = rawValue }
}
