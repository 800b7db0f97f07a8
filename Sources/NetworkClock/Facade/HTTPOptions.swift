#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HTTPTime
import NetClockPlatform
import SNTP
import TimeValues

extension NetworkClock {
    /// How time is measured from HTTP(S) responses when NTP gives none: which header to read, how
    /// many requests may be made and how long it may take.
    public struct HTTPOptions: Hashable, Sendable {
        /// The unit of a timestamp header's number.
        public enum TimestampUnit: String, Hashable, Sendable, CaseIterable {
            /// Seconds since 1970, with an optional decimal fraction (`1732932805.123`).
            case seconds
            /// Whole milliseconds since 1970 (`1732932805123`).
            case milliseconds
            /// Whole microseconds since 1970.
            case microseconds
            /// Whole nanoseconds since 1970.
            case nanoseconds
        }

        /// The HTTP time client's own configuration, which holds every setting below: the facade
        /// adds only the clock policy's frequency tolerance and the proxy policy read from ``proxy``
        /// when a sync uses it (``clientConfiguration(frequencyTolerancePPM:environment:)``).
        package var configuration: HTTPTimeClient.Configuration

        /// A timestamp header to read instead of `Date` (nil: use the `Date` header and refine it by
        /// timing requests around the server's second boundary).
        package var timestampHeader: HTTPTimestampHeader? {
            get { configuration.timestampHeader }
            set { configuration.timestampHeader = newValue }
        }
        /// The most requests one measurement may make, a refused `HEAD` included (at least 1).
        public var maximumRequests: Int {
            get { configuration.maximumRequests }
            set { configuration.maximumRequests = newValue }
        }
        /// With a timestamp header: how many samples to take and intersect (within
        /// ``maximumRequests``). They are cheap (no waits), and the sample that met the least delay
        /// before the server read its clock sets the bound, so all of them are taken.
        public var timestampSamples: Int {
            get { configuration.timestampSamples }
            set { configuration.timestampSamples = newValue }
        }
        /// With the `Date` header: refining stops once the error bound is at most this.
        public var targetErrorBound: Duration {
            get { configuration.targetErrorBound }
            set { configuration.targetErrorBound = newValue }
        }
        /// How long one request may take before it counts as timed out.
        public var requestTimeout: Duration {
            get { configuration.requestTimeout }
            set { configuration.requestTimeout = newValue }
        }
        /// How long the whole measurement may take, waits between requests included. When a further
        /// refining request would not fit, the measurement ends with what it has.
        public var deadline: Duration {
            get { configuration.deadline }
            set { configuration.deadline = newValue }
        }
        /// The least time between the end of one request and the start of the next.
        public var minimumSpacing: Duration {
            get { configuration.minimumSpacing }
            set { configuration.minimumSpacing = newValue }
        }
        /// The most bytes the head of an `http://` or `https://` response may have (status line,
        /// header fields and the empty line; at least 64); a longer head fails with
        /// `headers_too_large`.
        public var maximumResponseHeadBytes: Int {
            get { configuration.maximumResponseHeadBytes }
            set { configuration.maximumResponseHeadBytes = newValue }
        }
        /// Which proxy the requests go through (default: the environment's, as curl reads it).
        public var proxy: Proxy = .environment

        /// The name of the timestamp header read instead of `Date` (e.g. `X-Server-Time-Ms`), or nil
        /// to read `Date`.
        public var timestampHeaderName: String? { timestampHeader?.name }

        /// Creates options; the defaults read `Date` with at most 8 requests in 10 seconds (the
        /// HTTP time client's own defaults: 8 requests, 8 samples, a 15 ms target, a 3 s request
        /// timeout, a 10 s deadline, 20 ms spacing, a 16 KiB head, milliseconds).
        ///
        /// - Parameters:
        ///   - timestampHeader: A header your own backend sends with its clock as a number since
        ///     1970 (e.g. `X-Server-Time-Ms`), read instead of `Date`; nil reads `Date`.
        ///   - timestampUnit: The unit of that number.
        ///   - maximumRequests: The most requests one measurement may make.
        ///   - timestampSamples: With a timestamp header, how many samples to take and intersect.
        ///   - targetErrorBound: With `Date`, refining stops once the bound is at most this.
        ///   - requestTimeout: How long one request may take.
        ///   - deadline: How long the whole measurement may take.
        ///   - minimumSpacing: The least time between two requests.
        ///   - maximumResponseHeadBytes: The largest response head read from an `http://` server.
        public init(
            timestampHeader: String? = nil, timestampUnit: TimestampUnit = defaultTimestampUnit,
            maximumRequests: Int = defaults.maximumRequests,
            timestampSamples: Int = defaults.timestampSamples,
            targetErrorBound: Duration = defaults.targetErrorBound,
            requestTimeout: Duration = defaults.requestTimeout,
            deadline: Duration = defaults.deadline,
            minimumSpacing: Duration = defaults.minimumSpacing,
            maximumResponseHeadBytes: Int = defaults.maximumResponseHeadBytes
        ) {
            self.configuration = HTTPTimeClient.Configuration(
                timestampHeader: timestampHeader, timestampUnit: timestampUnit.headerUnit,
                maximumRequests: maximumRequests, timestampSamples: timestampSamples,
                targetErrorBound: targetErrorBound, requestTimeout: requestTimeout, deadline: deadline,
                minimumSpacing: minimumSpacing, maximumResponseHeadBytes: maximumResponseHeadBytes)
        }

        /// Options holding `configuration` as it is.
        init(configuration: HTTPTimeClient.Configuration) {
            self.configuration = configuration
        }

        /// The HTTP time client's defaults, which the initializer's default arguments read: the
        /// defaults are spelled once, in `HTTPTimeClient.Configuration`.
        @usableFromInline static let defaults = HTTPOptions(configuration: HTTPTimeClient.Configuration())

        /// The HTTP time client's default timestamp unit.
        @usableFromInline static var defaultTimestampUnit: TimestampUnit {
            TimestampUnit(HTTPTimeClient.Configuration.defaultTimestampUnit)
        }
    }
}

extension NetworkClock.HTTPOptions.TimestampUnit {
    /// The unit the parser calls `unit`.
    init(_ unit: HTTPTimestampHeader.Unit) {
        switch unit {
        case .seconds: self = .seconds
        case .milliseconds: self = .milliseconds
        case .microseconds: self = .microseconds
        case .nanoseconds: self = .nanoseconds
        }
    }

    /// The parser's unit.
    var headerUnit: HTTPTimestampHeader.Unit {
        switch self {
        case .seconds: return .seconds
        case .milliseconds: return .milliseconds
        case .microseconds: return .microseconds
        case .nanoseconds: return .nanoseconds
        }
    }
}

extension NetworkClock.HTTPOptions {
    /// The HTTP time client's configuration for these options, with the clock policy's frequency
    /// tolerance (``NetworkClock/ClockPolicy/frequencyTolerancePPM``, the one place it is set) and
    /// the proxy policy (reading `environment` when ``proxy`` is ``Proxy/environment``; by default
    /// the process's proxy variables, read alone: every facade is configured so, `netclock now`'s
    /// included).
    package func clientConfiguration(
        frequencyTolerancePPM: Double,
        environment: [String: String] = Syscalls.environment(HTTPProxyPolicy.environmentNames)
    ) -> HTTPTimeClient.Configuration {
        var configuration = self.configuration
        configuration.frequencyTolerancePPM = frequencyTolerancePPM
        configuration.proxy = proxy.policy(environment: environment)
        return configuration
    }
}
