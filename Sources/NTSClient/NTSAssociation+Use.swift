import NetClockPlatform
import NetClockTLS

extension NTSAssociation {
    /// Whether the association may be spent under `certificateTime`: its chain must be valid at the
    /// instant certificates are checked against now, so an association whose key exchange checked
    /// no time (a cold start) is re-verified against the time obtained since (and one that is not
    /// valid then needs a new key exchange); with the wall clock, only one whose key exchange
    /// checked it.
    package func isUsable(under certificateTime: CertificateTime) -> Bool {
        switch certificateTime {
        case .unchecked:
            return true
        case .wallClock:
            return self.certificateTime != .unchecked
        case .at(let seconds):
            if self.certificateTime == .unchecked && certificateChain.isEmpty { return false }
            return certificateChain.allSatisfy { $0.isValid(at: seconds) }
        }
    }

    /// The NTP server's address: the key exchange's own when it named no other host, else the
    /// first address the named host resolves to (a blocking lookup).
    @available(*, noasync, message: "may resolve a name; run it on the blocking pool")
    package func ntpAddress(family: AddressFamily) throws(TransportError) -> SocketAddress {
        if let knownNTPAddress { return knownNTPAddress }
        let addresses = try Resolver.resolve(keys.ntpHost, port: keys.ntpPort, family: family, limit: 1)
        guard let first = addresses.first else { throw .noAddresses(host: keys.ntpHost) }
        return first
    }
}
