import NTS
import NetClockPlatform
import NetClockTLS
import SNTP
import TimeValues

/// Protects one burst's requests to an NTS association's NTP server and checks its replies
/// (RFC 8915 §5.7): a fresh 32-byte Unique Identifier and one cookie per request, placeholders to
/// refill the association to eight cookies, an AES-SIV authenticator over the packet with a fresh
/// nonce; a reply counts only if it echoes the Unique Identifier and its authenticator verifies
/// with the server-to-client key. The cookies it carries (encrypted) join the association.
package struct NTSPacketProtection: PacketProtection {
    /// The length of the Unique Identifier sent (the minimum RFC 8915 §5.3 allows).
    package static let uniqueIdentifierLength = 32
    /// The length of the authenticator nonce sent (AES-SIV's recommended 16 bytes).
    package static let nonceLength = 16

    /// The association whose keys and cookies are used.
    package let association: NTSAssociation
    /// The random bytes of the request in flight: its Unique Identifier, then its nonce. One array
    /// reference, so that the protection fits an existential's inline buffer (no box per burst).
    private var random: [UInt8] = []
    /// The Unique Identifier of the request in flight.
    private var uniqueIdentifier: ArraySlice<UInt8> { random.prefix(Self.uniqueIdentifierLength) }
    /// Replies authenticated in this burst.
    package private(set) var authenticatedReplies = 0

    /// Protection for a burst on `association`.
    package init(association: NTSAssociation) {
        self.association = association
    }

    /// The NTS request for `header`.
    /// - Throws: `nts_no_cookies` when the association holds none (a new NTS-KE is needed), or
    ///   `nts_request_failed` when the request cannot be built or sealed.
    package mutating func protect(_ header: NTPPacket) throws(RejectionReason) -> [UInt8] {
        guard let (cookie, remaining) = association.takeCookie() else {
            throw .unauthenticated(
                ProtectionFailure(.ntsNoCookies, "no NTS cookie left: a new NTS key exchange is needed"))
        }
        // The Unique Identifier and the nonce from one draw of random bytes, neither copied.
        // Drawn into the burst's own buffer: one array for all its requests (the previous request's
        // identifier is no longer wanted once the next one is built).
        NTSRandom.fill(&random, count: Self.uniqueIdentifierLength + Self.nonceLength)
        let placeholders = max(
            0, min(NTSRequest.maximumPlaceholders, NTSAssociation.cookieTarget - 1 - remaining))
        do {
            let key = try association.sealing.get()
            let request = try NTSRequest(
                header: header, uniqueIdentifier: uniqueIdentifier, cookie: cookie,
                placeholderCount: placeholders, nonce: random[Self.uniqueIdentifierLength...])
            // Written once, sealed in place: the tag goes straight into the authenticator.
            return try request.encoded(ciphertextLength: AESSIV.tagLength) {
                associatedData, nonce, plaintext, ciphertext throws(NTSError) in
                do {
                    try key.seal(associatedData, nonce: nonce, plaintext: plaintext, into: ciphertext)
                } catch {
                    throw NTSError(.unencodable, "\(error)")
                }
            }
        } catch {
            throw .unauthenticated(
                ProtectionFailure(.ntsRequestFailed, "cannot build the NTS request: \(error)"))
        }
    }

    /// Checks a reply: NTS fields present and well formed, our Unique Identifier, a valid
    /// authenticator; then keeps the cookies it carries.
    package mutating func verify(reply datagram: [UInt8]) throws(RejectionReason) {
        let packet = try parse(datagram)
        let key: AESSIVKey
        do {
            key = try association.opening.get()
        } catch {
            throw .unauthenticated(
                ProtectionFailure(.ntsBadAuthenticator, "no server-to-client key (\(error.reason))"))
        }
        // Opened into memory of its own (no array for the plaintext), each cookie copied from there
        // straight into the association.
        var failure: RejectionReason?
        datagram.withUnsafeBytes { datagram in
            let sealed = UnsafeRawBufferPointer(rebasing: datagram[packet.ciphertext])
            // (Shorter than a tag, the opening throws.)
            let length = max(0, sealed.count - AESSIV.tagLength)
            withUnsafeTemporaryAllocation(byteCount: length, alignment: 16) { plaintext in
                do throws(AESSIVError) {
                    try key.open(
                        UnsafeRawBufferPointer(rebasing: datagram[..<packet.authenticatorOffset]),
                        nonce: UnsafeRawBufferPointer(rebasing: datagram[packet.nonce]), ciphertext: sealed,
                        into: plaintext)
                } catch {
                    failure = Self.badAuthenticator(error)
                    return
                }
                do throws(NTSError) {
                    try association.add(cookiesIn: UnsafeRawBufferPointer(plaintext))
                } catch {
                    failure = .unauthenticated(
                        ProtectionFailure(
                            .ntsMalformedReply, "malformed encrypted NTS fields: \(error.reason)"))
                }
            }
        }
        if let failure { throw failure }
        authenticatedReplies += 1
    }

    /// The rejection of a reply whose authenticator does not open.
    private static func badAuthenticator(_ error: AESSIVError) -> RejectionReason {
        .unauthenticated(
            ProtectionFailure(
                .ntsBadAuthenticator,
                "NTS authenticator does not verify with the server-to-client key (\(error.reason))"))
    }

    /// An NTS NAK (`NTSN`) is accepted when it echoes our Unique Identifier (it cannot be
    /// authenticated: the server lost our keys), and makes the association run a new NTS-KE. Any
    /// other kiss must be authenticated like a reply, or it is discarded.
    package mutating func verify(kissOfDeath datagram: [UInt8], code: NTPPacket.KissCode)
        throws(RejectionReason)
    {
        if code == .ntsNegativeAcknowledgement {
            let echoed: [UInt8]?
            do {
                echoed = try NTSPacket.uniqueIdentifier(inUnauthenticated: datagram)
            } catch {
                throw .unauthenticated(
                    ProtectionFailure(.ntsMalformedReply, "malformed NTS NAK: \(error.reason)"))
            }
            guard let echoed, echoed.elementsEqual(uniqueIdentifier) else {
                throw .unauthenticated(
                    ProtectionFailure(
                        .ntsUniqueIdentifierMismatch,
                        "NTS NAK without our request's Unique Identifier"))
            }
            association.markNegativelyAcknowledged()
            return
        }
        do {
            try verify(reply: datagram)
        } catch {
            throw .unauthenticated(
                ProtectionFailure(
                    .ntsUnauthenticatedKiss,
                    "unauthenticated Kiss-o'-Death \(code) from an NTS server: \(error.description)"))
        }
    }

    /// Where the parts of the datagram lie, an NTS packet carrying our Unique Identifier.
    private func parse(_ datagram: [UInt8]) throws(RejectionReason) -> NTSPacket.Layout {
        let packet: NTSPacket.Layout
        do {
            packet = try NTSPacket.Layout(parsing: datagram)
        } catch {
            switch error.code {
            case .noExtensionFields:
                throw .unauthenticated(
                    ProtectionFailure(
                        .ntsUnauthenticatedReply,
                        "reply without NTS extension fields from an NTS server (a downgrade)"))
            case .missingUniqueIdentifier:
                throw .unauthenticated(
                    ProtectionFailure(.ntsMissingUniqueIdentifier, "NTS reply without a Unique Identifier"))
            case .missingAuthenticator:
                throw .unauthenticated(
                    ProtectionFailure(.ntsMissingAuthenticator, "NTS reply without an authenticator"))
            default:
                throw .unauthenticated(
                    ProtectionFailure(.ntsMalformedReply, "malformed NTS reply: \(error.reason)"))
            }
        }
        guard datagram[packet.uniqueIdentifier].elementsEqual(uniqueIdentifier) else {
            throw .unauthenticated(
                ProtectionFailure(
                    .ntsUniqueIdentifierMismatch,
                    "NTS reply whose Unique Identifier is not our request's"))
        }
        return packet
    }
}

extension ProtectionFailureCode {
    /// The association holds no cookie: a new NTS-KE is needed.
    static let ntsNoCookies = Self(rawValue: "nts_no_cookies")
    /// The NTS request could not be built or sealed.
    static let ntsRequestFailed = Self(rawValue: "nts_request_failed")
    /// The authenticator does not verify with the server-to-client key.
    static let ntsBadAuthenticator = Self(rawValue: "nts_bad_authenticator")
    /// The reply's NTS fields (or an NTS NAK) are malformed.
    static let ntsMalformedReply = Self(rawValue: "nts_malformed_reply")
    /// The reply (or NAK) does not echo our request's Unique Identifier.
    static let ntsUniqueIdentifierMismatch = Self(rawValue: "nts_unique_identifier_mismatch")
    /// A Kiss-o'-Death other than an NTS NAK that does not authenticate.
    static let ntsUnauthenticatedKiss = Self(rawValue: "nts_unauthenticated_kiss")
    /// A reply without NTS extension fields from an NTS server (a downgrade).
    static let ntsUnauthenticatedReply = Self(rawValue: "nts_unauthenticated_reply")
    /// An NTS reply without a Unique Identifier.
    static let ntsMissingUniqueIdentifier = Self(rawValue: "nts_missing_unique_identifier")
    /// An NTS reply without an authenticator.
    static let ntsMissingAuthenticator = Self(rawValue: "nts_missing_authenticator")
}

/// Fresh random bytes for Unique Identifiers and authenticator nonces: AES-128's key stream keyed
/// from the kernel (``KeystreamRandom``, a few nanoseconds where the kernel's getrandom costs
/// 130 ns for a request's 48 bytes); the kernel's CSPRNG if that cannot be keyed, OpenSSL's if the
/// kernel has no `getrandom`, and `SystemRandomNumberGenerator` if OpenSSL fails too.
package enum NTSRandom {
    /// `count` random bytes.
    package static func bytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        fill(&bytes, count: count)
        return bytes
    }

    /// Makes `bytes` `count` fresh random bytes, in place when it already holds that many (and no
    /// one else holds it): no array per request.
    package static func fill(_ bytes: inout [UInt8], count: Int) {
        if bytes.count != count { bytes = [UInt8](repeating: 0, count: count) }
        if bytes.withUnsafeMutableBytes({ KeystreamRandom.shared.fill($0) }) { return }
        let filled = bytes.withUnsafeMutableBytes { Syscalls.fillRandom($0) }
        if case .success = filled { return }
        if let drawn = SecureRandom.bytes(count) {
            bytes = drawn
            return
        }
        var generator = SystemRandomNumberGenerator()
        var drawn: [UInt8] = []
        drawn.reserveCapacity(count + 7)
        while drawn.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { drawn.append(contentsOf: $0) }
        }
        bytes = Array(drawn.prefix(count))
    }
}
