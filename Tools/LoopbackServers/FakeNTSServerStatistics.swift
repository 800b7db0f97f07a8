extension FakeNTSServer {
    /// Why the server refused (dropped or NAKed) an NTP request.
    package enum RejectionReason: Hashable, Sendable {
        /// Not an NTP packet (shorter than 48 bytes).
        case undecodable
        /// An NTP packet whose mode is not client (3); dropped.
        case notClientMode
        /// Extension fields that do not frame as an NTS request (RFC 8915 §5); dropped.
        case malformedNTS
        /// No cookie, or a cookie this server did not make or cannot open; answered with an NTS NAK.
        case unknownCookie
        /// The authenticator does not verify with the cookie's C2S key; answered with an NTS NAK.
        case badAuthenticator
    }

    /// What the server has seen and done so far: counters and the last request's NTS fields.
    package struct Statistics: Hashable, Sendable {
        /// TLS handshakes that completed on the NTS-KE listener.
        package var keHandshakes = 0
        /// NTS-KE connections that ended without a response being sent (a failed handshake, a
        /// malformed or missing request, a timeout).
        package var keFailures = 0
        /// NTS-KE responses sent (in whatever form the behaviour dictates).
        package var keResponses = 0
        /// NTS-protected NTP requests whose cookie opened and whose authenticator verified (whatever
        /// the behaviour then made of the reply, ``Behaviour/nak`` included).
        package var authenticatedRequests = 0
        /// Plain (48-byte, non-NTS) NTP requests answered.
        package var plainRequests = 0
        /// Refused NTP requests, by reason.
        package var rejected: [RejectionReason: Int] = [:]
        /// Cookies handed out, by NTS-KE responses and by NTP replies together.
        package var cookiesIssued = 0
        /// The Unique Identifier of the last NTS request (authenticated or not).
        package var lastUniqueIdentifier: [UInt8]?
        /// The cookie of the last NTS request (authenticated or not).
        package var lastCookie: [UInt8]?
        /// NTS requests that carried a cookie (authenticated or not).
        package var cookiesPresented = 0
        /// NTS requests whose cookie an earlier request had already carried: a client that
        /// reuses cookies (RFC 8915 §5.7 forbids it) is seen here, across processes too.
        package var repeatedCookies = 0
        /// Every distinct cookie presented so far, up to ``maximumRememberedCookies``.
        package var presentedCookies: Set<[UInt8]> = []
        /// The most distinct cookies remembered, so that a flood cannot grow the set without end.
        package static let maximumRememberedCookies = 65_536
        /// The server name (SNI) the last NTS-KE client asked for, if any.
        package var lastRequestedServerName: String?

        /// Creates empty statistics.
        package init() {}

        /// Records the cookie of one NTS request.
        mutating func recordPresented(_ cookie: [UInt8]) {
            lastCookie = cookie
            cookiesPresented += 1
            if presentedCookies.contains(cookie) {
                repeatedCookies += 1
            } else if presentedCookies.count < Self.maximumRememberedCookies {
                presentedCookies.insert(cookie)
            }
        }

        /// The refused NTP requests of every reason.
        package var rejectedTotal: Int { rejected.values.reduce(0, +) }
    }
}
