extension FakeNTPServer.CommandLineOptions {
    /// The NTS options of `fake-ntp-server`: `--nts` serves a ``FakeNTSServer`` (NTS-KE on TCP, NTP
    /// on UDP) instead of the plain SNTP server.
    package struct NTSOptions: Hashable, Sendable {
        /// Whether `--nts` was given.
        package var enabled = false
        /// `--cert FILE`: the PEM certificate chain NTS-KE serves.
        package var certificateChainFile: String?
        /// `--key FILE`: its private key.
        package var privateKeyFile: String?
        /// `--nts-port N`: the NTS-KE TCP port; 0 (default) picks a free one.
        package var kePort: UInt16 = 0

        /// Creates the default (off) options.
        package init() {}

        /// Checks that `--cert` and `--key` come with `--nts` and `--nts` with both.
        func validate() throws(FakeNTPServer.UsageError) {
            if enabled {
                guard certificateChainFile != nil, privateKeyFile != nil else {
                    throw FakeNTPServer.UsageError("--nts: needs --cert FILE and --key FILE")
                }
            } else if certificateChainFile != nil || privateKeyFile != nil || kePort != 0 {
                throw FakeNTPServer.UsageError("--cert, --key and --nts-port need --nts")
            }
        }
    }

    /// The NTS server `--nts` asks for, or nil without it: `--host`, `--port` (the NTP port),
    /// `--offset`, `--stratum`, `--root-delay` and `--root-dispersion` carry over; the SNTP
    /// behaviours and delays do not apply.
    package var ntsConfiguration: FakeNTSServer.Configuration? {
        guard nts.enabled, let chain = nts.certificateChainFile, let key = nts.privateKeyFile else {
            return nil
        }
        var result = FakeNTSServer.Configuration(
            host: configuration.host, certificateChainFile: chain, privateKeyFile: key,
            offset: configuration.offset)
        result.kePort = nts.kePort
        result.ntpPort = configuration.port
        result.stratum = configuration.stratum
        result.rootDelay = configuration.rootDelay
        result.rootDispersion = configuration.rootDispersion
        return result
    }
}
