import NetClockPlatform

extension SNTPClient {
    /// The most addresses of one name that ``query(_:options:)`` tries, in the resolver's order.
    package static let addressesTried = 4

    /// Queries `server` with a burst of `options.samples` requests and returns the minimum-delay
    /// validated sample: the one least disturbed by queuing on the path (NTP's clock filter).
    ///
    /// The name is resolved to its A and AAAA addresses; they are tried in the resolver's order
    /// (at most four) until one gives a sample. Every reply is validated (it must echo this
    /// request's random nonce, come from the address queried, be synchronised, and carry sane
    /// timestamps); a rejected reply never becomes a sample. The call blocks its thread for at
    /// most about `samples × (interval + timeout)` per address tried.
    ///
    /// ```swift
    /// let sample = try SNTPClient().query(ServerName(host: "time.example.com"))
    /// print("local clock is off by", sample.offset, "±", sample.errorBound)
    /// ```
    /// - Throws: ``SNTPError``, for the first address tried, when no address gave a sample;
    ///   ``SNTPError/Code/invalidServerName`` for an NTS server (`ServerName.nts(_:port:)`).
    @available(*, noasync, message: "blocks its thread in poll(2); use the async query(_:options:)")
    public func query(_ server: ServerName, options: QueryOptions = QueryOptions()) throws(SNTPError)
        -> NTPSample
    {
        try query(server, options: options, isCancelled: { false })
    }

    /// Queries `server` as the blocking ``query(_:options:)`` does, on a thread of NetworkClock's
    /// bounded pool for blocking work, so the caller's cooperative thread never waits in `poll(2)`.
    ///
    /// Cancelling the calling task ends the call at once with ``SNTPError/Code/cancelled``; the
    /// burst itself stops within one 50 ms poll slice.
    /// - Throws: ``SNTPError``.
    public func query(_ server: ServerName, options: QueryOptions = QueryOptions()) async throws(SNTPError)
        -> NTPSample
    {
        let client = self
        let outcome: Result<NTPSample, SNTPError>
        do {
            outcome = try await BlockingPool.shared.run { flag in
                Result { () throws(SNTPError) in
                    try client.query(server, options: options, isCancelled: { flag.isCancelled })
                }
            }
        } catch {
            throw .cancelled(querying: server)
        }
        return try outcome.get()
    }

    /// The blocking query, stopping early when `isCancelled` says so.
    func query(_ server: ServerName, options: QueryOptions, isCancelled: () -> Bool) throws(SNTPError)
        -> NTPSample
    {
        guard !server.usesNTS else {
            throw SNTPError(
                code: .invalidServerName,
                reason:
                    "\(server) is an NTS-KE server; SNTPClient queries plain NTP servers (NetworkClock queries both)"
            )
        }
        let addresses: [SocketAddress]
        do {
            addresses = try Resolver.resolve(
                server.host, port: server.port ?? ServerName.defaultPort, limit: Self.addressesTried)
        } catch {
            throw SNTPError(error)
        }
        var firstFailure: SNTPError?
        for address in addresses {
            if isCancelled() {
                throw .cancelled(querying: server)
            }
            let result = query(address, options: options, isCancelled: isCancelled)
            if let best = result.best { return best }
            let failure = result.failure.map(SNTPError.init) ?? SNTPError(.timedOut)
            // A Kiss-o'-Death speaks for the server, not one path to it: ask no other address.
            if failure.code == .kissOfDeath { throw failure }
            if firstFailure == nil { firstFailure = failure }
        }
        throw firstFailure ?? SNTPError(.timedOut)
    }
}

extension SNTPError {
    /// The query of `server` was cancelled before it produced a sample.
    static func cancelled(querying server: ServerName) -> SNTPError {
        SNTPError(code: .cancelled, reason: "the query of \(server) was cancelled")
    }
}
