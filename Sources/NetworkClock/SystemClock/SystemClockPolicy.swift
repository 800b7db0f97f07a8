import TimeValues

extension NetworkClock {
    /// How `netclock set` (``SystemClockDecision``) may correct the system clock: the method, the
    /// thresholds, and whether another time discipline may be overridden.
    public struct SystemClockPolicy: Hashable, Sendable {
        /// How a correction is applied.
        public enum Method: String, Hashable, Sendable, CustomStringConvertible {
            /// A slew up to ``SystemClockPolicy/stepThreshold``, a step beyond it.
            case automatic
            /// Always a step (`--step`).
            case step
            /// Always a slew (`--slew`).
            case slew

            /// `automatic`, `step` or `slew`.
            public var description: String { rawValue }
        }

        /// The method; ``Method/automatic`` by default.
        public var method: Method
        /// The largest correction the automatic method slews: 0.5 s by default. The kernel slews a
        /// single-shot adjustment at 500 µs per second, so half a second takes about 17 minutes; a
        /// larger correction would leave the clock wrong for longer than a boot takes to matter, and a
        /// smaller one is not worth a step's discontinuity (timers, logs, `make`).
        public var stepThreshold: Duration
        /// The largest correction unauthenticated time (plain NTP, HTTP and HTTPS, a downgrade) may make:
        /// 1000 s by default, ntpd's panic threshold. Authenticated time (NTS, Roughtime) may correct any
        /// distance.
        public var maximumUnauthenticatedCorrection: Duration
        /// Whether to correct the clock although another time daemon disciplines it (`--force`).
        public var overridesOtherDisciplines: Bool
        /// How fast the monotonic time base may drift, in ppm, while a sync's interval is aged to the
        /// reading of the system clock (15 ppm by default, the clock's own tolerance).
        public var frequencyTolerancePPM: Double

        /// The defaults: automatic, 0.5 s, 1000 s, no override, 15 ppm.
        public static let defaultStepThreshold: Duration = .milliseconds(500)
        /// 1000 s: ntpd's panic threshold.
        public static let defaultMaximumUnauthenticatedCorrection: Duration = .seconds(1000)

        /// A policy; every parameter defaults to the documented default.
        public init(
            method: Method = .automatic, stepThreshold: Duration = Self.defaultStepThreshold,
            maximumUnauthenticatedCorrection: Duration = Self.defaultMaximumUnauthenticatedCorrection,
            overridesOtherDisciplines: Bool = false,
            frequencyTolerancePPM: Double = FrequencyTolerance.defaultPPM
        ) {
            self.method = method
            self.stepThreshold = stepThreshold
            self.maximumUnauthenticatedCorrection = maximumUnauthenticatedCorrection
            self.overridesOtherDisciplines = overridesOtherDisciplines
            self.frequencyTolerancePPM = frequencyTolerancePPM
        }
    }
}
