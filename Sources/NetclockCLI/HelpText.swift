import NetworkClock

/// The CLI's help and version text; pinned by a test so changes are deliberate.
package enum HelpText {
    /// The version printed by `--version`.
    package static let version = "netclock 0.1.0"

    /// The line after a usage error's reason: where the help is.
    package static let seeHelp = "see 'netclock --help'"

    /// The usage summary printed by `--help` and, on stderr, by `netclock` without a command.
    package static let usage = """
        usage: netclock query [SERVER ...] [--port N] [--samples N] [--interval SEC] [--timeout SEC]
                              [--http URL ...] [--http-only] [--http-header NAME] [-4|-6] [--json]
                              [--nts] [--nts-mode require|prefer|mix] [--ca-file FILE] [--allow-downgrade]
                              [--roughtime FILE ...] [--malfeasance-report FILE] [--certificate-time auto|wall-clock]
               netclock sync  [same options] [--state FILE]
               netclock now   [--state FILE] [--json]
               netclock watch [same options] [--count N] [--every SEC]
               netclock --help | --version
        """

    /// The full help.
    package static let full =
        usage + """


            Commands:
              query   ask NTP servers (or HTTP URLs) for the time and show offsets, delays, bounds
              sync    query, then store the result as an anchor for `now` (survives restarts, not reboots)
              now     print the trusted time from the stored anchor, without any network traffic
              watch   query repeatedly and print one line per round

            SERVER is host, host:port or [v6addr]:port (default: pool.ntp.org, all its addresses).

            Options:
              --port N          port for servers given without one (default 123)
              --samples N       requests per server address, 1-8 (default 4)
              --interval SEC    seconds between requests to one address (default 2; 0 only for your own servers)
              --timeout SEC     seconds to wait for each reply (default 2)
              --http URL        HTTP(S) URL to take the time from when NTP fails (repeatable)
              --http-only       skip NTP and use the --http URLs only
              --http-header N   response header with a millisecond server timestamp (default: Date only)
              --nts             every SERVER is an NTS-KE server (host or host:port, default port 4460):
                                authenticated time (RFC 8915)
              --nts-mode MODE   require (default): only authenticated (NTS, Roughtime) sources decide the
                                time; prefer: others only when none of them answered; mix: all alike
              --roughtime FILE  also ask the Roughtime servers of this server list (Cloudflare's
                                ecosystem JSON): signed time that needs no certificate (repeatable;
                                alone, no NTP server is asked)
              --malfeasance-report FILE
                                write the proof when a Roughtime server signs a wrong time
              --certificate-time auto|wall-clock
                                which time certificates (NTS-KE, https://) are checked against: auto
                                (default) the trusted clock of --state's anchor, else Roughtime's time,
                                else a bootstrap checked against the time obtained; wall-clock: strict
              --allow-downgrade with --nts-mode prefer|mix: accept time from unauthenticated sources when
                                no NTS source answered (exit 0, not 1); never replaces an authenticated anchor
              --ca-file FILE    trust only this PEM file's CAs for NTS-KE and https:// (default: the system's)
              -4, -6            use IPv4 or IPv6 addresses only
              --json            print one JSON object
              --state FILE      anchor file (default $XDG_CACHE_HOME/netclock/anchor.json)
              --count N         watch: stop after N rounds
              --every SEC       watch: seconds between round starts (default 64); with NTP servers at
                                least --samples times --interval, as requests to a server are spaced

            Exit status: 0 success, 1 no usable time source, 2 usage error.
            """
}
