/// The value an option or operand takes: its placeholder in help and synopses, and what a shell
/// completes for it.
package struct CLIValue: Hashable, Sendable {
    /// What the value is, for shell completion.
    package enum Kind: Hashable, Sendable {
        /// A number (a count, a port, seconds): nothing to complete.
        case number
        /// Free text (a header name): nothing to complete.
        case text
        /// An `http://` or `https://` URL.
        case url
        /// A path: the shell completes file names.
        case file
        /// A host name or address: the shell completes known host names.
        case host
        /// One of these words.
        case choices([String])
    }

    /// The placeholder (`N`, `FILE`); nil shows the choices (`auto|wall-clock`).
    package var placeholder: String?
    /// What the value is.
    package var kind: Kind

    /// A value shown as `placeholder`.
    package init(_ placeholder: String, _ kind: Kind) {
        self.placeholder = placeholder
        self.kind = kind
    }

    /// A value shown as its choices.
    package init(choices: [String]) {
        self.placeholder = nil
        self.kind = .choices(choices)
    }

    /// The words of a `.choices` value; empty for the others.
    package var choices: [String] {
        if case .choices(let words) = kind { return words }
        return []
    }

    /// How usage lines show it: the choices when there are some (`require|prefer|mix`), else the
    /// placeholder.
    package var synopsis: String {
        choices.isEmpty ? placeholder ?? "" : choices.joined(separator: "|")
    }

    /// How the option list shows it: the placeholder, else the choices.
    package var label: String {
        placeholder ?? choices.joined(separator: "|")
    }
}

/// One row of the option table: the single source that `--help`, the man page, the shell
/// completions and the parser's acceptance check are all rendered from.
package struct CLIOption: Equatable, Sendable {
    /// Where an option is accepted.
    package enum Scope: Equatable, Sendable {
        /// As the only argument, or after any command (`--help`).
        case anywhere
        /// Only as netclock's first argument (`--version`).
        case topLevel
        /// After every command that takes options (`--json`).
        case everyCommand
        /// After the commands that accept this group of options (``QueryCommandOptions/Extras``).
        case group(QueryCommandOptions.Extras)
    }

    /// The spellings shown together; each is an option of its own (`-4`, `-6`) or an alias
    /// (`-h`, `--help`).
    package var names: [String]
    /// The value it takes; nil for a flag.
    package var value: CLIValue?
    /// Where it is accepted.
    package var scope: Scope
    /// Whether it may be given more than once (usage lines show `...`).
    package var repeatable: Bool
    /// The help text, one paragraph: `--help` wraps it, the man page fills it.
    package var help: String
    /// A few words for completion menus.
    package var summary: String

    /// Creates a row.
    package init(
        _ names: [String], _ value: CLIValue? = nil, scope: Scope, repeatable: Bool = false,
        summary: String, help: String
    ) {
        self.names = names
        self.value = value
        self.scope = scope
        self.repeatable = repeatable
        self.summary = summary
        self.help = help
    }

    /// The spelling usage lines and menus show first: the long name when there is one.
    package var primaryName: String { names.last ?? "" }

    /// Whether the hand-written parser (``QueryCommandOptions/parse(_:accepting:)``) accepts it
    /// from a command accepting `extras`. `--help` and `--version` are answered before parsing.
    package func isAccepted(by extras: QueryCommandOptions.Extras) -> Bool {
        switch scope {
        case .anywhere, .topLevel: false
        case .everyCommand: true
        case .group(let group): extras.contains(group)
        }
    }

    /// Whether `command` accepts it (`--help` included, `--version` not).
    package func isAccepted(by command: CLICommand) -> Bool {
        guard let groups = command.optionGroups else { return scope == .anywhere }
        return scope == .anywhere || isAccepted(by: groups)
    }

    /// The usage line's fragment: `[--port N]`, `[--http URL ...]`, `[-4|-6]`.
    var synopsis: String {
        let value = value.map { " " + $0.synopsis } ?? ""
        let repeats = repeatable ? " ..." : ""
        return "[" + names.joined(separator: "|") + value + repeats + "]"
    }
}

/// A command's operand: `[SERVER ...]`, `bash|zsh|fish`.
package struct CLIOperand: Hashable, Sendable {
    /// What it is.
    package var value: CLIValue
    /// Whether it must be given.
    package var required: Bool
    /// Whether several may be given.
    package var repeatable: Bool

    /// How usage lines show it.
    var synopsis: String {
        let text = value.synopsis + (repeatable ? " ..." : "")
        return required ? text : "[" + text + "]"
    }
}

/// A command of `netclock`.
package struct CLICommand: Equatable, Sendable {
    /// Its name, the first argument.
    package var name: String
    /// The option groups it accepts beside `--json`; nil when it takes no options at all.
    package var optionGroups: QueryCommandOptions.Extras?
    /// Its operand, if it takes one.
    package var operand: CLIOperand?
    /// What it does, for the command list.
    package var summary: String

    /// The options it accepts, in the table's order (`--help` included).
    package var options: [CLIOption] {
        CLISpec.options.filter { $0.isAccepted(by: self) }
    }

    /// Whether its usage line stands `[same options]` for the servers and options of an earlier
    /// command taking the query options (`sync` and `watch` for `query`'s).
    package var foldsQueryOptions: Bool {
        guard optionGroups?.contains(.query) == true, let index = CLISpec.commands.firstIndex(of: self) else {
            return false
        }
        return CLISpec.commands[..<index].contains { $0.optionGroups?.contains(.query) == true }
    }

    /// The options its usage line lists: its groups' options in the table's order, then `--json`;
    /// without those that `[same options]` stands for.
    package var usageOptions: [CLIOption] {
        let own = options.filter { option in
            guard case .group(let group) = option.scope else { return false }
            return !(foldsQueryOptions && group == .query)
        }
        return own + (foldsQueryOptions ? [] : options.filter { $0.scope == .everyCommand })
    }
}

/// Everything the command line consists of: commands, options, operands and exit statuses. The
/// help text (``HelpText``), the man page (``ManPage``) and the completion scripts
/// (``CompletionScript``) are rendered from here, and the parser accepts exactly these options.
package enum CLISpec {
    /// The program's name.
    package static let program = "netclock"
    /// The version, printed by `--version`.
    package static let version = "0.1.0"
    /// The date of this version's manual page.
    package static let manualDate = "December 3, 2026"
    /// What netclock is, in one line (the man page's NAME).
    package static let purpose = "trusted time from NTP, NTS, Roughtime and HTTP(S) servers"

    /// The shells `netclock completion` writes scripts for.
    package static let shells = ["bash", "zsh", "fish"]

    /// The servers `query`, `sync` and `watch` take.
    static let servers = CLIOperand(value: CLIValue("SERVER", .host), required: false, repeatable: true)

    /// The commands, in the order help lists them.
    package static let commands: [CLICommand] = [
        CLICommand(
            name: "query", optionGroups: [.query], operand: servers,
            summary: "ask NTP servers (or HTTP URLs) for the time and show offsets, delays, bounds"),
        CLICommand(
            name: "sync", optionGroups: [.query, .state], operand: servers,
            summary: "query, then store the result as an anchor for `now` (survives restarts, not reboots)"),
        CLICommand(
            name: "now", optionGroups: [.state], operand: nil,
            summary: "print the trusted time from the stored anchor, without any network traffic"),
        CLICommand(
            name: "watch", optionGroups: [.query, .watch], operand: servers,
            summary: "query repeatedly and print one line per round"),
        CLICommand(
            name: "check", optionGroups: [.query, .state, .check], operand: servers,
            summary: "monitoring plugin: OK, WARNING, CRITICAL or UNKNOWN for the system clock's offset,"
                + " judged with its error bound (with --state alone: from the anchor, offline)"),
        CLICommand(
            name: "set", optionGroups: [.query, .state, .set], operand: servers,
            summary: "sync, then correct the system clock by the trusted offset (needs CAP_SYS_TIME)"),
        CLICommand(
            name: "completion", optionGroups: nil,
            operand: CLIOperand(value: CLIValue(choices: shells), required: true, repeatable: false),
            summary: "print the shell completion script for bash, zsh or fish"),
        CLICommand(
            name: "man", optionGroups: nil, operand: nil,
            summary: "print this manual as a man page (mdoc source: netclock man | man -l -)"),
    ]

    /// What a SERVER operand is.
    package static let serverNote =
        "SERVER is host, host:port or [v6addr]:port (default: pool.ntp.org, all its addresses)."

    /// The exit statuses of `check` (the Monitoring Plugins'), beside the others.
    package static let checkExitStatuses: [(status: PluginStatus, meaning: String)] = [
        (.ok, "OK: the offset is proven inside the warning range"),
        (.warning, "WARNING: not proven OK, not proven critical, or a downgrade"),
        (.critical, "CRITICAL: the offset is proven outside the critical range"),
        (.unknown, "UNKNOWN: no trusted time, a bound wider than --max-bound, or a usage error"),
    ]

    /// The exit statuses of the CLI contract.
    package static let exitStatuses: [(status: ExitStatus, meaning: String)] = [
        (.success, "success"), (.noTime, "no usable time source, or set refused a correction"),
        (.usage, "usage error"),
    ]

    /// The options, in the order help lists them.
    package static let options: [CLIOption] = [
        CLIOption(
            ["--port"], CLIValue("N", .number), scope: .group(.query),
            summary: "port for servers given without one",
            help: "port for servers given without one (default 123)"),
        CLIOption(
            ["--samples"], CLIValue("N", .number), scope: .group(.query),
            summary: "requests per server address, 1-8",
            help: "requests per server address, 1-8 (default 4)"),
        CLIOption(
            ["--interval"], CLIValue("SEC", .number), scope: .group(.query),
            summary: "seconds between requests to one address",
            help: "seconds between requests to one address (default 2; 0 only for your own servers)"),
        CLIOption(
            ["--timeout"], CLIValue("SEC", .number), scope: .group(.query),
            summary: "seconds to wait for each reply",
            help: "seconds to wait for each reply (default 2)"),
        CLIOption(
            ["--http"], CLIValue("URL", .url), scope: .group(.query), repeatable: true,
            summary: "HTTP(S) URL to take the time from when NTP fails",
            help: "HTTP(S) URL to take the time from when NTP fails (repeatable)"),
        CLIOption(
            ["--http-only"], scope: .group(.query),
            summary: "skip NTP and use the --http URLs only",
            help: "skip NTP and use the --http URLs only"),
        CLIOption(
            ["--http-header"], CLIValue("NAME", .text), scope: .group(.query),
            summary: "response header with a millisecond server timestamp",
            help: "response header with a millisecond server timestamp (default: Date only)"),
        CLIOption(
            ["--proxy"], CLIValue("URL", .text), scope: .group(.query),
            summary: "send --http requests through this http:// proxy",
            help: "send --http requests through this http:// proxy, [http://][user[:password]@]host[:port]"
                + " (default: https_proxy/HTTPS_PROXY for https://, http_proxy for http://, except the"
                + " hosts in no_proxy/NO_PROXY)"),
        CLIOption(
            ["--no-proxy"], scope: .group(.query),
            summary: "ignore the proxy environment variables",
            help: "connect to --http URLs directly, ignoring https_proxy, HTTPS_PROXY and http_proxy"),
        CLIOption(
            ["--nts"], scope: .group(.query),
            summary: "every SERVER is an NTS-KE server: authenticated time",
            help: "every SERVER is an NTS-KE server (host or host:port, default port 4460): authenticated"
                + " time (RFC 8915)"),
        CLIOption(
            ["--nts-mode"], CLIValue("MODE", .choices(["require", "prefer", "mix"])), scope: .group(.query),
            summary: "whether unauthenticated sources may decide the time",
            help: "require (default): only authenticated (NTS, Roughtime) sources decide the time; prefer:"
                + " others only when none of them answered; mix: all alike"),
        CLIOption(
            ["--roughtime"], CLIValue("FILE", .file), scope: .group(.query), repeatable: true,
            summary: "also ask the Roughtime servers of this server list",
            help: "also ask the Roughtime servers of this server list (Cloudflare's ecosystem JSON):"
                + " signed time that needs no certificate (repeatable; alone, no NTP server is asked)"),
        CLIOption(
            ["--malfeasance-report"], CLIValue("FILE", .file), scope: .group(.query),
            summary: "where to write the proof of a wrong Roughtime time",
            help: "write the proof when a Roughtime server signs a wrong time"),
        CLIOption(
            ["--certificate-time"], CLIValue(choices: ["auto", "wall-clock"]), scope: .group(.query),
            summary: "which time certificates are checked against",
            help: "which time certificates (NTS-KE, https://) are checked against: auto (default) the"
                + " trusted clock of --state's anchor, else Roughtime's time, else a bootstrap checked"
                + " against the time obtained; wall-clock: strict"),
        CLIOption(
            ["--allow-downgrade"], scope: .group(.query),
            summary: "accept unauthenticated time when no NTS source answered",
            help: "with --nts-mode prefer|mix: accept time from unauthenticated sources when no NTS"
                + " source answered (exit 0, not 1); never replaces an authenticated anchor"),
        CLIOption(
            ["--leap-seconds"], CLIValue("FILE", .file), scope: .group(.query),
            summary: "the leap-second table (or none)",
            help: "read leap seconds from this IERS/NIST leap-seconds.list (default"
                + " /usr/share/zoneinfo/leap-seconds.list; none: only the servers' leap indicator);"
                + " an expired or damaged table is ignored with a note"),
        CLIOption(
            ["--smearing-server"], CLIValue("SERVER", .host), scope: .group(.query), repeatable: true,
            summary: "also ask this NTP server, which smears leap seconds",
            help: "also ask this NTP server (host or host:port), known to smear leap seconds over 24 h"
                + " from noon to noon UTC as time.google.com does: its time is mapped onto stepping time"
                + " before the servers are compared (repeatable)"),
        CLIOption(
            ["--smear"], scope: .group(.state),
            summary: "smear leap seconds",
            help: "smear leap seconds over 24 h (noon to noon UTC, as the smearing public servers do)"
                + " instead of stepping as POSIX time does"),
        CLIOption(
            ["--ca-file"], CLIValue("FILE", .file), scope: .group(.query),
            summary: "trust only this PEM file's CAs",
            help: "trust only this PEM file's CAs for NTS-KE and https:// (default: the system's)"),
        CLIOption(
            ["-4", "-6"], scope: .group(.query),
            summary: "use IPv4 or IPv6 addresses only",
            help: "use IPv4 or IPv6 addresses only"),
        CLIOption(
            ["--json"], scope: .everyCommand,
            summary: "print one JSON object",
            help: "print one JSON object"),
        CLIOption(
            ["--state"], CLIValue("FILE", .file), scope: .group(.state),
            summary: "anchor file",
            help: "anchor file (default $XDG_CACHE_HOME/netclock/anchor.json)"),
        CLIOption(
            ["--count"], CLIValue("N", .number), scope: .group(.watch),
            summary: "stop after N rounds",
            help: "watch: stop after N rounds"),
        CLIOption(
            ["--every"], CLIValue("SEC", .number), scope: .group(.watch),
            summary: "seconds between round starts",
            help: "watch: seconds between round starts (default 64); with NTP servers at least --samples"
                + " times --interval, as requests to a server are spaced"),
        CLIOption(
            ["--metrics"], CLIValue("FILE", .file), scope: .group(.watch),
            summary: "Prometheus textfile written after every round",
            help: "watch: after every round, write the Prometheus text format to FILE (a temporary file"
                + " renamed into place) for node_exporter's textfile collector: offset, bound,"
                + " authentication, last sync age, sync counters, frequency, per-server offset, delay and status"
        ),
        CLIOption(
            ["-w", "--warning"], CLIValue("RANGE", .number), scope: .group(.check),
            summary: "offset range beyond which check warns",
            help: "check: WARNING unless the offset's magnitude is proven inside RANGE (seconds, Monitoring"
                + " Plugins syntax: 10, 10:, ~:10, 10:20, @10:20; default 60)"),
        CLIOption(
            ["-c", "--critical"], CLIValue("RANGE", .number), scope: .group(.check),
            summary: "offset range beyond which check is critical",
            help: "check: CRITICAL when the offset's magnitude is proven outside RANGE, even at the"
                + " edges of its error bound (default 120)"),
        CLIOption(
            ["--max-bound"], CLIValue("SEC", .number), scope: .group(.state),
            summary: "widest error bound accepted",
            help: "the widest error bound accepted: sync and set send nothing while the stored anchor's"
                + " bound, aged to now, is within SEC and it is authenticated where --nts asks (set then"
                + " corrects the clock from it); now exits 1, and check is UNKNOWN, when the bound is wider"
                + " (default: any bound)"),
        CLIOption(
            ["--max-age"], CLIValue("SEC", .number), scope: .group(.check),
            summary: "oldest anchor check --state accepts",
            help: "check --state: UNKNOWN when the stored anchor is older than SEC (default: any age; its"
                + " bound grows with age)"),
        CLIOption(
            ["-v", "--verbose"], scope: .group(.check), repeatable: true,
            summary: "print every source after the status line",
            help: "check: print a line per source after the status line"),
        CLIOption(
            ["--step", "--slew"], scope: .group(.set),
            summary: "set: always step, or always slew",
            help: "set: always step (one relative clock_adjtime call), or always slew (the kernel's"
                + " single-shot adjustment, 500 µs per second); default: slew up to --step-threshold, step beyond"
        ),
        CLIOption(
            ["--step-threshold"], CLIValue("SEC", .number), scope: .group(.set),
            summary: "set: the largest correction slewed rather than stepped",
            help: "set: the largest correction slewed rather than stepped (default 0.5, about 17 minutes"
                + " of slewing)"),
        CLIOption(
            ["--max-step"], CLIValue("SEC", .number), scope: .group(.set),
            summary: "set: the largest correction from unauthenticated time",
            help: "set: the largest correction unauthenticated time (NTP, HTTP(S)) may make (default 1000,"
                + " ntpd's panic threshold); NTS and Roughtime time may correct any distance"),
        CLIOption(
            ["--dry-run"], scope: .group(.set),
            summary: "set: decide and print, change nothing",
            help: "set: sync and decide as usual, but change neither the clock nor its kernel status"),
        CLIOption(
            ["--force"], scope: .group(.set),
            summary: "set: correct although another time daemon runs",
            help: "set: correct the clock although another time daemon (chronyd, ntpd, ntpd-rs,"
                + " systemd-timesyncd) or a kernel discipline was found"),
        CLIOption(
            ["-h", "--help"], scope: .anywhere,
            summary: "print the help",
            help: "print this help"),
        CLIOption(
            ["--version"], scope: .topLevel,
            summary: "print the version",
            help: "print the version"),
    ]

    /// The command named `name`.
    package static func command(named name: String) -> CLICommand? {
        commands.first { $0.name == name }
    }

    /// The option spelled `name`.
    package static func option(named name: String) -> CLIOption? {
        options.first { $0.names.contains(name) }
    }
}
