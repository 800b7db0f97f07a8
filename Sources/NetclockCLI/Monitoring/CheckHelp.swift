/// `netclock check --help`, in the shape the Monitoring Plugins guidelines give a plugin's help:
/// name and version, what it checks, usage, every option (from the option table, ``CLISpec``), the
/// threshold format, the verdict's rules, examples, exit statuses.
package enum CheckHelp {
    /// The help text.
    package static let text: String = {
        func paragraph(_ text: String, indent: Int = 1) -> [String] {
            HelpText.wrap(HelpText.words(text), lead: String(repeating: " ", count: indent), indent: indent)
        }
        var lines = [CLISpec.program + " check " + CLISpec.version, ""]
        lines += paragraph(
            "Checks this machine's clock against trusted time (NTP, NTS, Roughtime, HTTP(S)) and judges the"
                + " offset with its error bound, as a Monitoring Plugin (Nagios, Icinga, Checkmk, Zabbix"
                + " agents).", indent: 0)
        lines += ["", "Usage:"]
        lines += paragraph(
            "netclock check [SERVER ...] [-w RANGE] [-c RANGE] [--max-bound SEC] [-v] [query options]")
        lines += paragraph(
            "netclock check --state FILE [--max-age SEC] [-w RANGE] [-c RANGE] [--max-bound SEC]")
        guard let check = CLISpec.command(named: "check") else { return lines.joined(separator: "\n") }
        // The check's own options first, as a plugin's help has them; then the sources' (query's).
        let own = check.options.filter { $0.scope == .group(.check) || $0.scope == .anywhere }
        let sources = check.options.filter { !own.contains($0) }
        for (title, options) in [
            ("Options:", own), ("Source and state options (as for query, sync, now):", sources),
        ] {
            lines += ["", title]
            for option in options {
                let value = option.value.map { " " + $0.label } ?? ""
                lines.append(" " + option.names.joined(separator: ", ") + value)
                lines += paragraph(option.help, indent: 4)
            }
        }
        lines += ["", "Thresholds:"]
        lines += paragraph(
            "RANGE is [@]start:end in seconds, compared with the magnitude of the offset (true time minus"
                + " the system clock), as check_ntp_time compares it. A value outside start:end alerts;"
                + " with @, a value inside it. 10 means 0:10, 10: has no end, ~:10 no start. See"
                + " https://www.monitoring-plugins.org/doc/guidelines.html#THRESHOLDFORMAT")
        lines += ["", "Verdict:"]
        lines += paragraph(
            "The true offset lies within the measured offset plus or minus its error bound. CRITICAL only"
                + " when every offset in that interval alerts -c; OK only when none alerts -w or -c;"
                + " WARNING otherwise. So a wide bound gives WARNING where check_ntp_time, which has no"
                + " bound, says OK. UNKNOWN: no trusted time (no source answered, no majority, a"
                + " missing anchor or one of another boot), an anchor older than --max-age, or a bound"
                + " wider than --max-bound. NTS servers configured but only unauthenticated sources"
                + " answering (a downgrade) is at least WARNING, and says so; with --nts-mode require"
                + " (the default) their time is not used at all: UNKNOWN.")
        lines += ["", "Output:"]
        lines += paragraph(
            "One status line, e.g. 'NETCLOCK OK - system clock +0.012s ± 0.003s from trusted time (nts,"
                + " authenticated)|offset=-0.012s;0.5;1;; error_bound=0.003s;;;0; sources=3;;;0;"
                + " authenticated=1;;;0;1'."
                + " The line says where the system clock is (+ ahead); perfdata offset is true time"
                + " minus the system clock, check_ntp_time's sign. -v adds a line per source.")
        lines += ["", "Examples:"]
        lines += [
            " netclock check --nts time.cloudflare.com nts.netnod.se -w 0.5 -c 1",
            " netclock check --state /var/lib/netclock/anchor.json --max-age 3600 -w 0.1 -c 1 --max-bound 0.5",
        ]
        let statuses = CLISpec.checkExitStatuses.map { "\($0.status.rawValue) \($0.status)" }
        lines += ["", "Exit status: " + statuses.joined(separator: ", ") + "."]
        return lines.joined(separator: "\n")
    }()
}
