import NetClockPlatform
import SNTP
import TimeValues

extension FakeNTPServer {
    /// A command-line mistake: the message for stderr; the command exits with status 2.
    package struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What was wrong, e.g. `--port: not a port number: 70000`.
        package var message: String

        /// Creates an error with a message.
        package init(_ message: String) {
            self.message = message
        }

        /// The message.
        package var description: String { message }
    }

    /// The options of the `fake-ntp-server` command, parsed by hand in the shape of
    /// swift-argument-parser: defaults in the properties, one `parse` that throws ``UsageError``.
    package struct CommandLineOptions: Hashable, Sendable {
        /// What the command was asked to do.
        package enum Action: Hashable, Sendable {
            /// Serve until SIGINT or SIGTERM, or until ``CommandLineOptions/count`` requests are done.
            case serve
            /// Print ``CommandLineOptions/help`` and exit 0.
            case showHelp
            /// Print ``CommandLineOptions/version`` and exit 0.
            case showVersion
        }

        /// What to do.
        package var action: Action = .serve
        /// The server to run.
        package var configuration = Configuration()
        /// Exit after this many requests have been served (replied to or dropped); nil: never.
        package var count: Int?
        /// Whether to print a line to stderr for each request.
        package var verbose = false
        /// The NTS options (`--nts`, `--cert`, `--key`, `--nts-port`).
        package var nts = NTSOptions()

        /// Creates the default options.
        package init() {}

        /// The command's version.
        package static let version = "fake-ntp-server 0.1.0"

        /// The `--help` text.
        package static let help = """
            USAGE: fake-ntp-server [options]

            A fake SNTP server on a loopback address, for tests and demos. Prints one line,
            `listening on HOST:PORT` (`[::1]:PORT` for IPv6), then serves until SIGINT or SIGTERM.

            OPTIONS:
              --host ADDRESS            Loopback address to bind: 127.0.0.1 (default), ::1 or any
                                        127.x.y.z (e.g. 127.0.0.123 with --port 123 for ntpdig).
                                        Other addresses are refused.
              --port N                  UDP port; 0 (default) picks a free one.
              --offset SEC              The server's clock minus this machine's, in seconds
                                        (1.5, -2, 31536000) or with a unit (250ms).
              --frequency PPM           How fast the server's clock gains on this machine's, in
                                        parts per million from the start (60, -12.5; default 0).
              --out-delay SPEC          Client-to-server path delay, applied before stamping T2.
              --processing-delay SPEC   Delay between stamping T2 and T3.
              --return-delay SPEC       Server-to-client path delay, applied after stamping T3.
                                        SPEC: none, 5ms, uniform:5ms:50ms, exp:40ms, or
                                        spikes:PROBABILITY:LOW:HIGH:BASE (e.g. spikes:0.05:100ms:1s:exp:2ms).
                                        Units: ns, us, ms, s.
              --seed N                  Seed of the delay and garbage generator (default \(Configuration().seed)).
              --stratum N               Stratum of replies, 0-255 (default 2).
              --leap N                  Leap indicator of replies, 0-3 (default 0).
              --leap-midnight-in SEC    With --leap 1 or 2: set the server's clock (replacing --offset)
                                        SEC seconds before the end of this UTC month and apply the
                                        leap there, as a kernel does: step back 1 s at midnight
                                        (insert) or forward 1 s at 23:59:59 (delete); LI 0 after.
              --smear                   With --leap 1 or 2 and --leap-midnight-in: smear the leap
                                        over 24 h from noon to noon UTC instead of stepping, as
                                        time.google.com does; LI 0 throughout.
              --refid TEXT              Reference ID: a dotted quad or up to 4 ASCII characters
                                        (default LOCL for stratum 1, 127.127.1.1 otherwise).
              --precision N             log2 seconds, -128 to 127 (default -20).
              --root-delay DURATION     Root delay of replies (default 0).
              --root-dispersion DURATION
                                        Root dispersion of replies (default 100us).
              --behaviour NAME[:ARG]    Misbehave on every request. NAME is one of: normal,
                                        truncated:LENGTH, wrong-mode:N, wrong-version:N,
                                        wrong-origin, zero-origin, stale-origin, unsynchronized,
                                        kiss:CODE, stratum:N, zero-transmit, zero-receive,
                                        receive-after-transmit, root-distance:DELAY:DISPERSION,
                                        negative-delay, garbage:LENGTH, no-reply, late:DURATION,
                                        duplicate, other-port, answer-every:N, stale-first,
                                        bad-first:BEHAVIOUR, stepped:DURATION (a clock that
                                        many seconds further ahead; may be negative).
              --count N                 Exit 0 after serving N requests.
              --nts                     Serve NTS (RFC 8915) instead: NTS-KE over TLS 1.3 on TCP,
                                        NTS-protected NTP on UDP --port (named in the NTS-KE
                                        response). --host, --port, --offset, --stratum,
                                        --root-delay and --root-dispersion apply; the behaviours
                                        and delays above do not. Prints `listening on HOST:PORT`
                                        (NTS-KE), then `ntp on HOST:PORT`. --count counts
                                        authenticated NTS requests.
              --cert FILE               With --nts: the PEM certificate chain to serve.
              --key FILE                With --nts: its private key.
              --nts-port N              With --nts: the NTS-KE TCP port; 0 (default) picks one.
              -v, --verbose             Print a line to stderr for each request.
              -h, --help                Show this help and exit.
              --version                 Show the version and exit.

            EXIT STATUS: 0 stopped by a signal or --count; 1 cannot bind; 2 usage error.
            """

        /// Parses the arguments (without the program name).
        package static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
            var options = CommandLineOptions()
            var remaining = arguments[...]
            while let argument = remaining.popFirst() {
                var name = argument
                var inlineValue: String?
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inlineValue = String(argument[argument.index(after: equals)...])
                }
                func value() throws(UsageError) -> String {
                    if let inlineValue { return inlineValue }
                    guard let next = remaining.popFirst() else { throw UsageError("\(name): missing value") }
                    return next
                }
                switch name {
                case "-h", "--help": options.action = .showHelp
                case "--version": options.action = .showVersion
                case "-v", "--verbose": options.verbose = true
                case "--host":
                    let host = try value()
                    guard let address = SocketAddress(numericHost: host, port: 0) else {
                        throw UsageError("--host: not a numeric IPv4 or IPv6 address: \(host)")
                    }
                    guard address.isLoopback else {
                        throw UsageError("--host: refusing a non-loopback address: \(host)")
                    }
                    options.configuration.host = host
                case "--port": options.configuration.port = try integer(try value(), name)
                case "--offset":
                    options.configuration.offset = try duration(try value(), name, allowNegative: true)
                case "--frequency":
                    let text = try value()
                    guard let ppm = Double(text), ppm.isFinite, abs(ppm) <= 1_000_000 else {
                        throw UsageError("--frequency: not a frequency in ppm: \(text)")
                    }
                    options.configuration.frequencyPPM = ppm
                case "--out-delay": options.configuration.outboundDelay = try delay(try value(), name)
                case "--processing-delay":
                    options.configuration.processingDelay = try delay(try value(), name)
                case "--return-delay": options.configuration.returnDelay = try delay(try value(), name)
                case "--seed": options.configuration.seed = try integer(try value(), name)
                case "--stratum":
                    options.configuration.stratum = NTPPacket.Stratum(
                        rawValue: try integer(try value(), name))
                case "--leap":
                    let leap: UInt8 = try integer(try value(), name)
                    guard leap <= 3 else { throw UsageError("--leap: must be 0-3: \(leap)") }
                    options.configuration.leap = NTPPacket.LeapIndicator(rawValue: leap)
                case "--leap-midnight-in":
                    let lead = try duration(try value(), name, allowNegative: false)
                    let now = SystemWallClock().now()
                    let midnight = FakeNTPServer.monthEnd(after: now)
                    options.configuration.leapMidnight = midnight
                    options.configuration.offset = (midnight - lead) - now
                case "--smear": options.configuration.smear = true
                case "--refid": options.configuration.referenceID = try referenceID(try value())
                case "--precision":
                    options.configuration.precision = NTPPacket.Log2Seconds(
                        rawValue: try integer(try value(), name))
                case "--root-delay": options.configuration.rootDelay = try duration(try value(), name)
                case "--root-dispersion":
                    options.configuration.rootDispersion = try duration(try value(), name)
                case "--behaviour", "--behavior":
                    let text = try value()
                    do {
                        options.configuration.behaviour = try Behaviour(spec: text)
                    } catch {
                        throw UsageError("\(name): \(error.message)")
                    }
                case "--count":
                    let count: Int = try integer(try value(), name)
                    guard count > 0 else { throw UsageError("--count: must be positive: \(count)") }
                    options.count = count
                case "--nts": options.nts.enabled = true
                case "--cert": options.nts.certificateChainFile = try value()
                case "--key": options.nts.privateKeyFile = try value()
                case "--nts-port": options.nts.kePort = try integer(try value(), name)
                default:
                    throw UsageError("unknown option: \(argument)")
                }
            }
            if options.action == .serve { try options.nts.validate() }
            return options
        }

        private static func integer<T: FixedWidthInteger>(_ text: String, _ name: String) throws(UsageError)
            -> T
        {
            guard let value = T(text) else { throw UsageError("\(name): not an integer in range: \(text)") }
            return value
        }

        private static func duration(_ text: String, _ name: String, allowNegative: Bool = false)
            throws(UsageError) -> Duration
        {
            guard let value = FakeNTPServer.parseDuration(text), allowNegative || value >= .zero else {
                throw UsageError("\(name): not a \(allowNegative ? "" : "non-negative ")duration: \(text)")
            }
            return value
        }

        private static func delay(_ text: String, _ name: String) throws(UsageError) -> DelayDistribution {
            do {
                return try DelayDistribution(spec: text)
            } catch {
                throw UsageError("\(name): \(error.message)")
            }
        }

        private static func referenceID(_ text: String) throws(UsageError) -> NTPPacket.ReferenceID {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) {
                let value = parts.reduce(UInt32(0)) { $0 << 8 | UInt32(UInt8($1) ?? 0) }
                return NTPPacket.ReferenceID(rawValue: value)
            }
            guard (1...4).contains(text.utf8.count), text.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
            else {
                throw UsageError("--refid: not a dotted quad or 1-4 ASCII characters: \(text)")
            }
            return NTPPacket.ReferenceID(ascii: text)
        }
    }
}
