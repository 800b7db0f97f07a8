import NetClockPlatform
import Testing

/// The resolver refuses what cannot be a host before any lookup, with the reason, and passes on
/// names, IPv4 literals and IPv6 literals with or without brackets.
@Suite("Resolver")
struct ResolverTests {
    @Test(arguments: [
        ("127.0.0.1:123", "a host holds no ':port': give the port on its own"),
        ("time.example:4460", "a host holds no ':port': give the port on its own"),
        ("[::1", "unmatched brackets: an IPv6 address is written [v6addr] or without brackets"),
        ("::1]", "unmatched brackets: an IPv6 address is written [v6addr] or without brackets"),
        ("[::1]:123", "unmatched brackets: an IPv6 address is written [v6addr] or without brackets"),
        ("time example", "a host name holds no spaces"),
    ])
    func refusesWhatIsNotAHost(host: String, reason: String) {
        #expect(throws: TransportError.resolutionFailed(host: host, reason: reason)) {
            try Resolver.resolve(host, port: 123)
        }
    }

    @Test(arguments: [("127.0.0.1", "127.0.0.1:123"), ("::1", "[::1]:123"), ("[::1]", "[::1]:123")])
    func resolvesLiterals(host: String, address: String) throws {
        let addresses = try Resolver.resolve(host, port: 123)
        #expect(addresses.map(\.description) == [address])
    }

    @Test func aFamilyWithoutAddressesAndAnUnknownNameAreErrors() {
        #expect(throws: TransportError.noAddresses(host: "127.0.0.1")) {
            try Resolver.resolve("127.0.0.1", port: 123, family: .ipv6)
        }
        #expect(throws: TransportError.self) { try Resolver.resolve("no-such-host.invalid", port: 123) }
    }
}
