import NetClockPlatform
import Testing
import TimeValues

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

    @Test(arguments: [
        ("", "empty server name"),
        ("host:0", "invalid port in 'host:0'"),
        ("host:99999", "invalid port in 'host:99999'"),
        (":123", "invalid server ':123'"),
        ("[::1", "invalid server '[::1'"),
        ("[::1]x", "invalid server '[::1]x'"),
        ("a b", "invalid server 'a b'"),
    ])
    func rejectsMalformedNames(text: String, reason: String) {
        #expect(throws: SNTPError(code: .invalidServerName, reason: "")) { try ServerName(parsing: text) }
        do {
            _ = try ServerName(parsing: text)
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
        }
    }

    /// A `host:port` text given as the host is refused with its reason, not sent to the resolver.
    @Test func aHostWithAPortIsRefusedWithItsReason() {
        let result = Result { () throws(SNTPError) in
            try SNTPClient().query(ServerName(host: "127.0.0.1:123"))
        }
        #expect(throws: SNTPError(code: .resolutionFailed, reason: "")) { try result.get() }
        if case .failure(let error) = result {
            #expect(
                error.reason
                    == "cannot resolve 127.0.0.1:123: a host holds no ':port': give the port on its own")
        }
    }
}
