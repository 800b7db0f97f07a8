#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetClockPlatform
import NetClockTLS
import Roughtime

extension FakeRoughtimeServer.Behaviour {
    /// The behaviour's name on the command line: the case in kebab case (`bad-response-signature`).
    package var name: String {
        String(describing: self).reduce(into: "") { name, character in
            if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
        }
    }

    /// The behaviour named `name`, or nil.
    package init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}

extension FakeRoughtimeServer {
    /// The options of the `fake-roughtime-server` command, parsed by hand like `fake-ntp-server`'s.
    package struct CommandLineOptions: Sendable {
        /// Whether to serve or print the help.
        package var showHelp = false
        /// The server to run.
        package var configuration: Configuration
        /// Print a line to stderr for every change of the counters.
        package var verbose = false

        /// The `--help` text.
        package static let help = """
            USAGE: fake-roughtime-server [options]

            A fake Roughtime server (RFC 10049, drafts 10-15, Google-Roughtime) on a loopback
            address, for tests and demos. Prints `listening on HOST:PORT` and `public key BASE64`,
            then serves until SIGINT or SIGTERM.

            OPTIONS:
              --host ADDRESS        Loopback address to bind: 127.0.0.1 (default) or ::1.
              --port N              UDP port; 0 (default) picks a free one.
              --seed BASE64         The long-term Ed25519 private key (32-byte seed, base64);
                                    default: a fresh key.
              --offset SEC          Added to this machine's clock (a validly signed lie), e.g. 3600.
              --radius SEC          The signed radius in whole seconds (default 3).
              --versions LIST       Versions served, comma-separated: rfc, draft-10 ... draft-15,
                                    google (default: all).
              --batch-window MS     Answer requests arriving within MS milliseconds of the first
                                    together, under one signature (default 0).
              --delay MS            Hold every reply back MS milliseconds (default 0).
              --behaviour NAME      Misbehave on every request: \(Behaviour.allCases.map(\.name).joined(separator: ", ")).
              -v, --verbose         Print the counters to stderr when they change.
              -h, --help            Show this help and exit.

            EXIT STATUS: 0 stopped by a signal; 1 cannot bind; 2 usage error.
            """

        /// Parses the arguments (without the program name).
        package static func parse(_ arguments: [String]) throws -> CommandLineOptions {
            var options = CommandLineOptions(configuration: try Configuration())
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                func value() throws(FakeNTPServer.UsageError) -> String {
                    guard let next = remaining.popFirst() else {
                        throw FakeNTPServer.UsageError("\(argument): missing value")
                    }
                    return next
                }
                func number(_ text: String) throws(FakeNTPServer.UsageError) -> Double {
                    guard let number = Double(text), number.isFinite else {
                        throw FakeNTPServer.UsageError("\(argument): not a number: \(text)")
                    }
                    return number
                }
                switch argument {
                case "-h", "--help": options.showHelp = true
                case "-v", "--verbose": options.verbose = true
                case "--host":
                    let host = try value()
                    guard let address = SocketAddress(numericHost: host, port: 0), address.isLoopback else {
                        throw FakeNTPServer.UsageError("--host: not a numeric loopback address: \(host)")
                    }
                    options.configuration.host = host
                case "--port":
                    let text = try value()
                    guard let port = UInt16(text) else {
                        throw FakeNTPServer.UsageError("--port: not a port: \(text)")
                    }
                    options.configuration.port = port
                case "--seed":
                    let text = try value()
                    guard let seed = Data(base64Encoded: text),
                        let key = try? Ed25519.PrivateKey(seed: Array(seed))
                    else {
                        throw FakeNTPServer.UsageError("--seed: not 32 bytes of base64")
                    }
                    options.configuration.longTermKey = key
                case "--offset": options.configuration.offset = .seconds(try number(try value()))
                case "--radius": options.configuration.radius = .seconds(max(1, try number(try value())))
                case "--batch-window":
                    options.configuration.batchWindow = .milliseconds(max(0, try number(try value())))
                case "--delay":
                    options.configuration.replyDelay = .milliseconds(max(0, try number(try value())))
                case "--versions":
                    options.configuration.versions = try versions(try value())
                case "--behaviour", "--behavior":
                    let text = try value()
                    guard let behaviour = Behaviour(name: text) else {
                        throw FakeNTPServer.UsageError("\(argument): unknown behaviour: \(text)")
                    }
                    options.configuration.behaviour = behaviour
                default:
                    throw FakeNTPServer.UsageError("unknown option: \(argument)")
                }
            }
            return options
        }

        private static func versions(_ text: String) throws(FakeNTPServer.UsageError) -> [RoughtimeVersion] {
            var versions: [RoughtimeVersion] = []
            for name in text.split(separator: ",") {
                if name == "rfc" {
                    versions.append(.rfc)
                } else if name == "google" {
                    versions.append(.google)
                } else if name.hasPrefix("draft-"), let number = UInt32(name.dropFirst(6)),
                    RoughtimeVersion.draft(number).isSupported
                {
                    versions.append(.draft(number))
                } else {
                    throw FakeNTPServer.UsageError("--versions: unknown version: \(name)")
                }
            }
            guard !versions.isEmpty else { throw FakeNTPServer.UsageError("--versions: empty") }
            return versions
        }
    }
}
