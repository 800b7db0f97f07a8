import Roughtime
import Testing

/// Server lists in the format Cloudflare publishes and `roughly` reads.
@Suite struct RoughtimeEcosystemTests {
    static let key = "2O3mkkheDExCuhG+ZNIoWmO/IdCdLzADgUn8SnC4hME="

    func parse(_ json: String) throws -> RoughtimeEcosystem {
        try RoughtimeEcosystem(json: Array(json.utf8))
    }

    @Test func theRFCExampleList() throws {
        let ecosystem = try parse(
            """
            {"servers": [
              {"name": "example.com Roughtime server", "version": 1, "publicKeyType": "ed25519",
               "publicKey": "\(Self.key)",
               "addresses": [{"protocol": "udp", "address": "roughtime.example.com:2002"},
                             {"protocol": "tcp", "address": "roughtime.example.com:2002"}]},
              {"name": "A UDP-only server specified with IP addresses", "version": 1, "publicKeyType": "ed25519",
               "publicKey": "ZYfeGa94YuG1IZrV3kR9+8/nmZ2lX2XyHmiSb+wI0OY=",
               "addresses": [{"protocol": "udp", "address": "192.0.2.33:2002"},
                             {"protocol": "udp", "address": "[2001:db8::2:33]:2002"}]}],
             "sources": ["https://www.example.net/roughtime/ecosystem.json"],
             "reports": "https://www.example.net/roughtime/malfeasance"}
            """)
        #expect(ecosystem.servers.count == 2)
        #expect(ecosystem.skipped.isEmpty)
        let first = ecosystem.servers[0]
        #expect(first.name == "example.com Roughtime server")
        #expect(first.addresses == ["roughtime.example.com:2002"], "TCP addresses are not used")
        #expect(first.versions == [.rfc])
        #expect(first.publicKey == Base64.decode(Self.key))
        #expect(ecosystem.servers[1].addresses == ["192.0.2.33:2002", "[2001:db8::2:33]:2002"])
    }

    @Test(
        "version values",
        arguments: [
            ("1", [RoughtimeVersion.rfc]), ("2147483660", [.draft(12)]),
            ("\"IETF-Roughtime\"", RoughtimeVersion.defaultOffer),
            ("\"Google-Roughtime\"", [.google]), ("3000600613", [.google]), ("\"1\"", [.rfc]),
        ])
    func versionValues(_ value: String, _ expected: [RoughtimeVersion]) throws {
        let ecosystem = try parse(
            """
            {"servers": [{"name": "s", "version": \(value), "publicKeyType": "ed25519", "publicKey": "\(Self.key)",
              "addresses": [{"protocol": "udp", "address": "127.0.0.1:2002"}]}]}
            """)
        #expect(ecosystem.servers.first?.versions == expected)
    }

    @Test func unusableServersAreSkippedWithTheirReasons() throws {
        let good = """
            {"name": "good", "version": 1, "publicKeyType": "ed25519", "publicKey": "\(Self.key)",
             "addresses": [{"protocol": "udp", "address": "127.0.0.1:2002"}]}
            """
        let ecosystem = try parse(
            """
            {"servers": [
              \(good),
              {"name": "old draft", "version": 2147483655, "publicKeyType": "ed25519", "publicKey": "\(Self.key)",
               "addresses": [{"protocol": "udp", "address": "127.0.0.1:2002"}]},
              {"name": "short key", "version": 1, "publicKeyType": "ed25519", "publicKey": "AAAA",
               "addresses": [{"protocol": "udp", "address": "127.0.0.1:2002"}]},
              {"name": "other scheme", "version": 1, "publicKeyType": "ecdsa", "publicKey": "\(Self.key)",
               "addresses": [{"protocol": "udp", "address": "127.0.0.1:2002"}]},
              {"name": "tcp only", "version": 1, "publicKeyType": "ed25519", "publicKey": "\(Self.key)",
               "addresses": [{"protocol": "tcp", "address": "127.0.0.1:2002"}]},
              {"version": 1, "publicKeyType": "ed25519", "publicKey": "\(Self.key)", "addresses": "nowhere"}
            ]}
            """)
        #expect(ecosystem.servers.map(\.name) == ["good"])
        #expect(
            ecosystem.skipped.map(\.name) == [
                "old draft", "short key", "other scheme", "tcp only", "server 6",
            ])
        #expect(ecosystem.skipped[0].reason.contains("0x80000007"))
    }

    @Test(
        "files that are not usable lists",
        arguments: [
            "", "[]", "{}", "{\"servers\": 3}", "{\"servers\": []}", "not json",
            "{\"servers\": [{\"name\": \"x\", \"version\": 1}]}",
        ])
    func invalidFiles(_ json: String) {
        #expect(throws: RoughtimeError(.invalidEcosystem, "")) { try parse(json) }
    }
}
