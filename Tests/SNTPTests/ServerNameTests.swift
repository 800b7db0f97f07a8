import NetClockPlatform
import Testing

@testable import SNTP

struct ServerNameTests {
    @Test(
        arguments: [
            ("pool.ntp.org", "pool.ntp.org", nil),
            ("127.0.0.1:11123", "127.0.0.1", 11123),
            ("[::1]:123", "::1", 123),
            ("[::1]", "::1", nil),
            ("2001:db8::1", "2001:db8::1", nil),
            ("time.example:1", "time.example", 1),
        ] as [(String, String, UInt16?)])
    func parses(text: String, host: String, port: UInt16?) throws {
        let name = try ServerName(parsing: text)
        #expect(name.host == host)
        #expect(name.port == port)
    }

    @Test func rejectsMalformedNames() {
        #expect(throws: ServerNameError.empty) { try ServerName(parsing: "") }
        #expect(throws: ServerNameError.invalidPort("host:0")) { try ServerName(parsing: "host:0") }
        #expect(throws: ServerNameError.invalidPort("host:99999")) { try ServerName(parsing: "host:99999") }
        #expect(throws: ServerNameError.invalid(":123")) { try ServerName(parsing: ":123") }
        #expect(throws: ServerNameError.invalid("[::1")) { try ServerName(parsing: "[::1") }
        #expect(throws: ServerNameError.invalid("[::1]x")) { try ServerName(parsing: "[::1]x") }
        #expect(throws: ServerNameError.invalid("a b")) { try ServerName(parsing: "a b") }
    }

    @Test func resolvesNumericAddressesAndLocalhost() throws {
        let v4 = try Resolver.resolve("127.0.0.1", port: 123)
        #expect(v4 == [SocketAddress(ipv4: (127, 0, 0, 1), port: 123)])
        let v6 = try Resolver.resolve("::1", port: 123)
        #expect(v6.map(\.description) == ["[::1]:123"])
        #expect(throws: TransportError.noAddresses(host: "127.0.0.1")) {
            try Resolver.resolve("127.0.0.1", port: 123, family: .ipv6Only)
        }
        #expect(throws: TransportError.self) { try Resolver.resolve("no-such-host.invalid", port: 123) }
    }
}
