import TimeValues

/// How to query one server address: how many packets, how far apart, how long to wait.
public struct QueryOptions: Hashable, Sendable {
    /// Requests to send (a burst). Default 4, like chrony's `iburst`.
    public var samples: Int
    /// Minimum spacing between two requests to the same address, measured send to send.
    /// Default 2 s, which public NTP pools accept; set 0 only for your own or loopback servers.
    public var interval: Duration
    /// How long to wait for the reply to each request.
    public var timeout: Duration
    /// The limits a reply must meet.
    public var validation: ValidationPolicy
    /// How far either clock's frequency may be off during an exchange, in parts per million; each
    /// sample's error bound grows by this much of its round trip, and a bound carried from one
    /// instant to another grows by this much of the time between them. Default 15 ppm
    /// (``defaultFrequencyTolerancePPM``); clamped to 0…1000.
    public var frequencyTolerancePPM: Double {
        didSet { frequencyTolerancePPM = Self.validTolerance(frequencyTolerancePPM) }
    }

    /// The most requests one burst may send to a server.
    public static let maximumBurst = 8
    /// The spacing public NTP servers expect between packets from one client.
    public static let publicServerInterval: Duration = .seconds(2)
    /// The frequency tolerance NTP assumes for a commodity clock (RFC 5905's PHI), in ppm: 15.
    public static let defaultFrequencyTolerancePPM: Double = FrequencyTolerance.defaultPPM

    /// `ppm` if it is a usable tolerance (finite, 0…1000), else the default.
    package static func validTolerance(_ ppm: Double) -> Double { FrequencyTolerance.valid(ppm) }

    /// Creates options; `samples` is clamped to 1…``maximumBurst``, negative durations to zero.
    public init(
        samples: Int = 4, interval: Duration = publicServerInterval, timeout: Duration = .seconds(2),
        validation: ValidationPolicy = ValidationPolicy(),
        frequencyTolerancePPM: Double = defaultFrequencyTolerancePPM
    ) {
        self.frequencyTolerancePPM = Self.validTolerance(frequencyTolerancePPM)
        self.samples = min(max(samples, 1), Self.maximumBurst)
        self.interval = max(interval, .zero)
        self.timeout = max(timeout, .milliseconds(1))
        self.validation = validation
    }
}

extension QueryOptions: CustomStringConvertible {
    /// E.g. `4 requests 2.000000s apart, 2.000000s timeout each`.
    public var description: String {
        let count = samples == 1 ? "1 request" : "\(samples) requests \(interval.formattedSeconds) apart"
        return "\(count), \(timeout.formattedSeconds) timeout each"
    }
}
