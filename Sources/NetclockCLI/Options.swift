import NetworkClock

/// Options shared by `query`, `sync` and `watch`, parsed by hand in the shape of
/// swift-argument-parser (which this package may not depend on).
package struct QueryCommandOptions: Hashable, Sendable {
    /// Servers as given (`host`, `host:port`, `[v6]:port`); empty means the defaults.
    package var servers: [ServerName] = []
    /// Port for servers given without one.
    package var port: UInt16 = 123
    /// Requests per server address.
    package var samples: Int = 4
    /// Seconds between requests to one address.
    package var interval: Duration = QueryOptions.publicServerInterval
    /// Seconds to wait for each reply.
    package var timeout: Duration = .seconds(2)
    /// Whether `--timeout` was given: then it bounds each HTTP(S) request too (else HTTP keeps
    /// its own default, 3 s).
    package var timeoutWasGiven = false
    /// HTTP(S) URLs to use as fallback time sources.
    package var httpURLs: [String] = []
    /// Skip NTP and use only the HTTP URLs.
    package var httpOnly = false
    /// Address family restriction (`-4`, `-6`).
    package var addressFamily: NetworkClock.AddressFamily = .any
    /// Print one JSON object instead of text.
    package var json = false
    /// `sync`/`now`: the anchor file (default: the XDG cache location).
    package var statePath: String?
    /// `watch`: rounds to run (nil: until interrupted).
    package var count: Int?
    /// `watch`: seconds between rounds.
    package var every: Duration = .seconds(64)
    /// Header carrying a server timestamp in HTTP responses.
    package var httpTimestampHeader: String?
    /// `--proxy URL` / `--no-proxy`: the proxy of the `--http` requests (default: the
    /// environment's).
    package var proxy: NetworkClock.HTTPOptions.Proxy = .environment
    /// `--nts`: every server names an NTS-KE server (`host`, `host:port`; default port 4460).
    package var nts = false
    /// `--nts-mode`: whether unauthenticated sources may decide the time.
    package var ntsMode: NetworkClock.NTSMode = .require
    /// `--ca-file`: trust only this PEM file's CAs for NTS-KE and `https://` (default: the system's).
    package var caFile: String?
    /// `--leap-seconds FILE|none`: the leap-second table read at each sync (default tzdata's).
    package var leapSecondTable: String? = NetworkClock.Configuration.defaultLeapSecondTable
    /// `--smearing-server SERVER`: servers (also in ``servers``) known to smear leap seconds.
    package var smearingServers: [ServerName] = []
    /// `--smear`: `now` smears leap seconds (24 h, noon to noon) instead of stepping.
    package var smearsLeapSeconds = false
    /// `--allow-downgrade`: accept unauthenticated time when NTS servers are configured but none
    /// answered (exit 0 instead of 1); a stored authenticated anchor is still never moved by it.
    package var allowDowngrade = false
    /// `--roughtime FILE`: Roughtime server lists (ecosystem JSON) to query beside the servers.
    package var roughtimeFiles: [String] = []
    /// `--malfeasance-report FILE`: where to write the proof when Roughtime servers contradict
    /// each other.
    package var malfeasanceReportPath: String?
    /// `--certificate-time auto|wall-clock`: which time certificates are checked against.
    package var certificateTime: NetworkClock.CertificateTimePolicy = .automatic
    /// `check -w RANGE`: nil for the default (``CheckThresholds/defaultWarning``).
    package var warning: ThresholdRange?
    /// `check -c RANGE`: nil for the default (``CheckThresholds/defaultCritical``).
    package var critical: ThresholdRange?
    /// `--max-bound SEC`, the widest error bound the command accepts: `sync` and `set` send nothing
    /// while the stored anchor is within it, `now` exits 1 and `check` is UNKNOWN beyond it.
    package var maxBound: Duration?
    /// `check --max-age SEC`: with `--state`, an older anchor is UNKNOWN.
    package var maxAge: Duration?
    /// `check -v`: how many times it was given.
    package var verbosity = 0
    /// `watch --metrics FILE`: the Prometheus textfile written after every round.
    package var metricsPath: String?
    /// `set`: how the system clock may be corrected (`--step`, `--slew`, `--step-threshold`,
    /// `--max-step`, `--force`).
    package var systemClock = NetworkClock.SystemClockPolicy()
    /// `set --dry-run`: decide and print, but change neither the clock nor its kernel status.
    package var dryRun = false

    /// Creates the defaults.
    package init() {}

    /// The option groups a command accepts (the option table's rows say which group each option
    /// belongs to; `--json` belongs to every command).
    package struct Extras: OptionSet, Sendable {
        /// The raw bits.
        package var rawValue: Int
        /// Creates a set from raw bits.
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// `--state FILE`.
        package static let state = Extras(rawValue: 1)
        /// `--count N` and `--every SEC`.
        package static let watch = Extras(rawValue: 2)
        /// Servers and the query flags.
        package static let query = Extras(rawValue: 4)
        /// `check`'s thresholds: `-w`, `-c`, `--max-bound`, `--max-age`, `-v`.
        package static let check = Extras(rawValue: 8)
        /// `set`'s options: `--step`, `--slew`, `--step-threshold`, `--max-step`, `--dry-run`,
        /// `--force`.
        package static let set = Extras(rawValue: 16)
    }

    /// Parses the arguments after the subcommand name.
    package static func parse(_ arguments: [String], accepting extras: Extras) throws(UsageError) -> Self {
        var options = Self()
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            // The option table decides which options exist and which commands take them.
            if argument.hasPrefix("-") && argument.count > 1,
                CLISpec.option(named: argument)?.isAccepted(by: extras) != true
            {
                throw UsageError("unknown option \(argument)")
            }
            switch argument {
            case "--port":
                let text = try value(argument)
                guard let port = UInt16(text), port > 0 else { throw UsageError("invalid --port \(text)") }
                options.port = port
            case "--samples":
                let text = try value(argument)
                guard let samples = Int(text), (1...QueryOptions.maximumBurst).contains(samples) else {
                    throw UsageError("--samples must be 1-\(QueryOptions.maximumBurst), got \(text)")
                }
                options.samples = samples
            case "--interval":
                options.interval = try seconds(try value(argument), flag: argument, allowZero: true)
            case "--timeout":
                options.timeout = try seconds(try value(argument), flag: argument, allowZero: false)
                options.timeoutWasGiven = true
            case "--http":
                let url = try value(argument)
                guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                    throw UsageError("--http needs an http:// or https:// URL, got \(url)")
                }
                options.httpURLs.append(url)
            case "--nts":
                options.nts = true
            case "--nts-mode":
                let text = try value(argument)
                guard let mode = NetworkClock.NTSMode(rawValue: text) else {
                    throw UsageError("--nts-mode must be require, prefer or mix, got \(text)")
                }
                options.ntsMode = mode
            case "--leap-seconds":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError("--leap-seconds needs a file or none") }
                options.leapSecondTable = path == "none" ? nil : path
            case "--smear":
                options.smearsLeapSeconds = true
            case "--smearing-server":
                let text = try value(argument)
                do {
                    let server = try ServerName(parsing: text)
                    options.servers.append(server)
                    options.smearingServers.append(server)
                } catch {
                    throw UsageError("--smearing-server: \(error.description)")
                }
            case "--ca-file":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError("--ca-file needs a file") }
                options.caFile = path
            case "--roughtime":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError("--roughtime needs a server list file") }
                options.roughtimeFiles.append(path)
            case "--malfeasance-report":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError("--malfeasance-report needs a file") }
                options.malfeasanceReportPath = path
            case "--certificate-time":
                let text = try value(argument)
                switch text {
                case "auto", "automatic": options.certificateTime = .automatic
                case "wall-clock": options.certificateTime = .wallClock
                default: throw UsageError("--certificate-time must be auto or wall-clock, got \(text)")
                }
            case "--allow-downgrade":
                options.allowDowngrade = true
            case "--http-only":
                options.httpOnly = true
            case "--http-header":
                options.httpTimestampHeader = try value(argument)
            case "--proxy":
                // The value is never echoed: it may hold credentials.
                guard options.proxy != .none,
                    let proxy = NetworkClock.HTTPOptions.Proxy(url: try value(argument))
                else {
                    throw UsageError(
                        options.proxy == .none
                            ? "--proxy and --no-proxy exclude each other"
                            : "--proxy needs an http:// proxy URL: [http://][user[:password]@]host[:port]")
                }
                options.proxy = proxy
            case "--no-proxy":
                guard options.proxy == .environment else {
                    throw UsageError("--proxy and --no-proxy exclude each other")
                }
                options.proxy = .none
            case "-4":
                guard options.addressFamily != .ipv6 else { throw UsageError("-4 and -6 exclude each other") }
                options.addressFamily = .ipv4
            case "-6":
                guard options.addressFamily != .ipv4 else { throw UsageError("-4 and -6 exclude each other") }
                options.addressFamily = .ipv6
            case "--json":
                options.json = true
            case "--state":
                options.statePath = try value(argument)
            case "--count":
                let text = try value(argument)
                guard let count = Int(text), count > 0 else { throw UsageError("invalid --count \(text)") }
                options.count = count
            case "--every":
                options.every = try seconds(try value(argument), flag: argument, allowZero: false)
            case "-w", "--warning", "-c", "--critical":
                let text = try value(argument)
                guard let range = ThresholdRange(parsing: text) else {
                    throw UsageError("invalid \(argument) \(text) (a range: 10, 10:, ~:10, 10:20 or @10:20)")
                }
                if argument == "-w" || argument == "--warning" {
                    options.warning = range
                } else {
                    options.critical = range
                }
            case "--max-bound":
                options.maxBound = try seconds(try value(argument), flag: argument, allowZero: false)
            case "--max-age":
                options.maxAge = try seconds(
                    try value(argument), flag: argument, allowZero: false, limit: 366 * 86_400)
            case "-v", "--verbose":
                options.verbosity += 1
            case "--metrics":
                let path = try value(argument)
                guard !path.isEmpty else { throw UsageError("--metrics needs a file") }
                options.metricsPath = path
            case "--step", "--slew":
                let method: NetworkClock.SystemClockPolicy.Method = argument == "--step" ? .step : .slew
                guard options.systemClock.method == .automatic || options.systemClock.method == method else {
                    throw UsageError("--step and --slew exclude each other")
                }
                options.systemClock.method = method
            case "--step-threshold":
                options.systemClock.stepThreshold = try seconds(
                    try value(argument), flag: argument, allowZero: true)
            case "--max-step":
                options.systemClock.maximumUnauthenticatedCorrection = try longSeconds(
                    try value(argument), flag: argument)
            case "--dry-run":
                options.dryRun = true
            case "--force":
                options.systemClock.overridesOtherDisciplines = true
            default:
                if argument.hasPrefix("-") && argument.count > 1 {
                    throw UsageError("unknown option \(argument)")
                }
                guard extras.contains(.query) else { throw UsageError("unexpected argument \(argument)") }
                do {
                    options.servers.append(try ServerName(parsing: argument))
                } catch {
                    throw UsageError(error.description)
                }
            }
            index += 1
        }
        if options.malfeasanceReportPath != nil && options.roughtimeFiles.isEmpty {
            throw UsageError("--malfeasance-report needs --roughtime")
        }
        if options.httpOnly && options.httpURLs.isEmpty {
            throw UsageError("--http-only needs at least one --http URL")
        }
        if options.nts {
            options.servers = options.servers.map { .nts($0.host, port: $0.port) }
            options.smearingServers = options.smearingServers.map { .nts($0.host, port: $0.port) }
        }
        return options
    }

    private static func seconds(
        _ text: String, flag: String, allowZero: Bool, limit: Double = 86_400
    ) throws(UsageError) -> Duration {
        guard let value = Double(text), value.isFinite, value >= 0, value <= limit,
            allowZero || value > 0, let duration = Duration(secondsDouble: value)
        else {
            throw UsageError(
                "invalid \(flag) \(text) (seconds, \(allowZero ? "0" : ">0")-\(Int(limit)))")
        }
        return duration
    }

    /// `check`'s rules beyond the option groups: `--state` reads the stored anchor alone (no
    /// servers, `--http` or `--roughtime` with it), and `--max-age` needs `--state`.
    package func validatedForCheck() throws(UsageError) -> Self {
        if statePath != nil && (!servers.isEmpty || !httpURLs.isEmpty || !roughtimeFiles.isEmpty) {
            throw UsageError(
                "check --state reads the stored anchor: no SERVER, --http or --roughtime with it")
        }
        if maxAge != nil && statePath == nil { throw UsageError("--max-age needs --state") }
        return self
    }

    /// The thresholds of `-w`, `-c` and `--max-bound` (defaults for those not given).
    package var checkThresholds: CheckThresholds {
        CheckThresholds(
            warning: warning ?? CheckThresholds.defaultWarning,
            critical: critical ?? CheckThresholds.defaultCritical,
            maxBound: maxBound?.secondsDouble)
    }

    /// `--max-step`: seconds from 0 to about 317 years (a clock may be wrong by decades).
    private static func longSeconds(_ text: String, flag: String) throws(UsageError) -> Duration {
        guard let value = Double(text), value.isFinite, value >= 0, value <= 1e10,
            let duration = Duration(secondsDouble: value)
        else {
            throw UsageError("invalid \(flag) \(text) (seconds, 0-10000000000)")
        }
        return duration
    }

    /// The NTP servers to query: the given ones, else the defaults, except with `--roughtime`
    /// (the Roughtime servers alone then).
    package var effectiveServers: [ServerName] {
        servers.isEmpty && roughtimeFiles.isEmpty ? NetworkClock.Configuration.defaultServers : servers
    }

    /// Whom TLS connections trust: `--ca-file`, else the system's store.
    package var trustRoots: NetworkClock.TrustRoots {
        caFile.map { .certificateFile($0) } ?? .system
    }

    /// The sync policy these options describe: the facade's, from ``configuration(store:)``.
    package var syncPolicy: SyncPolicy { configuration(store: nil).syncPolicy }
}

/// The anchor file `sync` writes and `now` reads: `--state FILE`, or the XDG cache default.
enum AnchorFileLocation {
    static func store(for options: QueryCommandOptions) -> Result<AnchorStore, AnchorStoreError> {
        if let path = options.statePath {
            return .success(AnchorStore(path: path))
        }
        do {
            return .success(try AnchorStore())
        } catch {
            return .failure(error)
        }
    }
}
