import TimeValues

extension HTTPTimeClient {
    /// How an ``HTTPTimeClient`` measures: which header to read, how many requests it may make and
    /// how long it may take. The one home of these settings: `NetworkClock.HTTPOptions`, their
    /// public face, holds one of these and adds, when a sync uses it, the clock policy's frequency
    /// tolerance and the proxy policy.
    package struct Configuration: Hashable, Sendable {
        /// A timestamp header to read instead of `Date` (nil: use the `Date` header and refine it by
        /// timing requests around the server's second boundary).
        package var timestampHeader: HTTPTimestampHeader?
        /// The most requests one measurement may make, a refused `HEAD` included (at least 1).
        package var maximumRequests: Int
        /// With a timestamp header: how many samples to take and intersect (within
        /// ``maximumRequests``).
        package var timestampSamples: Int
        /// With the `Date` header: refining stops once the error bound is at most this.
        package var targetErrorBound: Duration
        /// How long one request may take before it counts as timed out.
        package var requestTimeout: Duration
        /// How long the whole measurement may take, waits between requests included.
        package var deadline: Duration
        /// The least time between the end of one request and the start of the next.
        package var minimumSpacing: Duration
        /// How fast the local monotonic clock may drift from true time, in parts per million;
        /// evidence from earlier requests is widened by this much per elapsed second so it stays
        /// sound.
        package var frequencyTolerancePPM: Double
        /// The most bytes the head of a response may have (status line, header fields and the
        /// empty line; at least 64); a longer head fails with `headers_too_large`.
        package var maximumResponseHeadBytes: Int
        /// Which proxy each URL's requests go through (default: none; the facade reads the
        /// environment).
        package var proxy: HTTPProxyPolicy = .direct

        /// The unit a timestamp header's number is read in unless another is given.
        package static let defaultTimestampUnit = HTTPTimestampHeader.Unit.milliseconds

        /// A configuration; the defaults read `Date` with at most 8 requests in 10 seconds. They are
        /// the only spelling of the defaults: `NetworkClock.HTTPOptions`'s initializer reads them.
        package init(
            timestampHeader: String? = nil, timestampUnit: HTTPTimestampHeader.Unit = defaultTimestampUnit,
            maximumRequests: Int = 8,
            timestampSamples: Int = 8,
            targetErrorBound: Duration = .milliseconds(15),
            requestTimeout: Duration = .seconds(3),
            deadline: Duration = .seconds(10),
            minimumSpacing: Duration = .milliseconds(20),
            frequencyTolerancePPM: Double = FrequencyTolerance.defaultPPM,
            maximumResponseHeadBytes: Int = 16_384
        ) {
            self.timestampHeader = timestampHeader.map { HTTPTimestampHeader(name: $0, unit: timestampUnit) }
            self.maximumRequests = maximumRequests
            self.timestampSamples = timestampSamples
            self.targetErrorBound = targetErrorBound
            self.requestTimeout = requestTimeout
            self.deadline = deadline
            self.minimumSpacing = minimumSpacing
            self.frequencyTolerancePPM = frequencyTolerancePPM
            self.maximumResponseHeadBytes = maximumResponseHeadBytes
        }

        /// The most responses with a time to use: ``timestampSamples`` with a timestamp header,
        /// unlimited (within ``maximumRequests``) for `Date`.
        package var sampleLimit: Int { timestampHeader == nil ? Int.max : max(1, timestampSamples) }
    }
}
