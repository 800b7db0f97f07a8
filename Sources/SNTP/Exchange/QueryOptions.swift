/// How to query one server address: how many packets, how far apart, how long to wait.
package struct QueryOptions: Hashable, Sendable {
    /// Requests to send (a burst). Default 4, like chrony's `iburst`.
    package var samples: Int
    /// Minimum spacing between two requests to the same address, measured send to send.
    /// Default 2 s, which public NTP pools accept; set 0 only for your own or loopback servers.
    package var interval: Duration
    /// How long to wait for the reply to each request.
    package var timeout: Duration
    /// The limits a reply must meet.
    package var validation: ValidationPolicy

    /// The most requests one burst may send to a server.
    package static let maximumBurst = 8
    /// The spacing public NTP servers expect between packets from one client.
    package static let publicServerInterval: Duration = .seconds(2)

    /// Creates options; `samples` is clamped to 1…``maximumBurst`` and negative durations to zero.
    package init(
        samples: Int = 4, interval: Duration = publicServerInterval, timeout: Duration = .seconds(2),
        validation: ValidationPolicy = ValidationPolicy()
    ) {
        self.samples = min(max(samples, 1), Self.maximumBurst)
        self.interval = max(interval, .zero)
        self.timeout = max(timeout, .milliseconds(1))
        self.validation = validation
    }
}
