import NetClockPlatform
import TimeBase

extension NetworkClock {
    /// What to do to the system clock after a sync: nothing, a slew, a step, or a refusal with its
    /// reason. A pure value, computed from the sync's trusted interval and one reading of the system
    /// clock; ``NetworkClock/applyToSystemClock(_:)`` carries it out.
    ///
    /// The rules, in order:
    /// 1. The sync's interval is aged to the reading (its bound grows at the policy's drift tolerance):
    ///    ``trueTime`` ± ``errorBound``, and ``correction`` = ``trueTime`` − the system clock.
    /// 2. **None** when the system clock lies inside the interval (|correction| ≤ bound), whatever the
    ///    method.
    /// 3. **Refused** `before_floor` when ``trueTime`` lies before the time floor;
    ///    `unauthenticated_correction_too_large` when the time is not authenticated and |correction|
    ///    exceeds ``SystemClockPolicy/maximumUnauthenticatedCorrection``; `bound_too_wide` when the
    ///    bound exceeds half the correction (below that the corrected clock, off by at most the bound,
    ///    is certain to be closer to true time than the clock was, off by at least |correction| −
    ///    bound); `other_time_daemon` when another discipline was found and may not be overridden.
    /// 4. Else a **slew** when forced, or automatic and |correction| ≤ the step threshold (edges slew);
    ///    a **step** otherwise.
    public struct SystemClockDecision: Hashable, Sendable, CustomStringConvertible {
        /// What the decision does.
        public enum Action: String, Hashable, Sendable, CustomStringConvertible {
            /// The system clock is inside the trusted interval: nothing is changed.
            case none
            /// The correction is slewed out (`adjtime`'s single-shot adjustment).
            case slew
            /// The clock is stepped by the correction in one relative call.
            case step
            /// A guard refused the correction (``SystemClockDecision/refusal`` says which).
            case refused

            /// `none`, `slew`, `step` or `refused`.
            public var description: String { rawValue }
        }

        /// What to do.
        public let action: Action
        /// Trusted time minus the system clock at the reading (positive: the clock is behind).
        public let correction: Duration
        /// The trusted time's error bound at the reading.
        public let errorBound: Duration
        /// The trusted time at the reading.
        public let trueTime: UnixTime
        /// The system clock reading the decision was made at.
        public let reading: SystemClockReading
        /// Whether the trusted time is authenticated (NTS, Roughtime).
        public let isAuthenticated: Bool
        /// The method the policy asked for.
        public let method: SystemClockPolicy.Method
        /// Why the correction was refused; nil unless ``action`` is ``Action/refused``.
        public let refusal: SystemClockRefusal?

        /// Decides from a sync's result: its true time, bound, monotonic instant and authentication.
        public init(
            report: SyncReport, reading: SystemClockReading, floor: UnixTime?,
            otherDisciplines: [TimeDiscipline],
            policy: SystemClockPolicy
        ) {
            self.init(
                trueTime: report.trueTime, at: report.monotonic, errorBound: report.errorBound,
                isAuthenticated: report.isAuthenticated && !report.isDowngraded, reading: reading,
                floor: floor,
                otherDisciplines: otherDisciplines, policy: policy)
        }

        /// Decides from a trusted interval (`trueTime` ± `errorBound` at the monotonic instant
        /// `instant`), a reading of the system clock, the time floor, the other disciplines found and a
        /// policy.
        public init(
            trueTime: UnixTime, at instant: MonotonicInstant, errorBound: Duration, isAuthenticated: Bool,
            reading: SystemClockReading, floor: UnixTime?, otherDisciplines: [TimeDiscipline],
            policy: SystemClockPolicy
        ) {
            let elapsed = reading.monotonic - instant
            let aged = trueTime + elapsed
            let bound = errorBound + abs(elapsed).drift(atPPM: policy.frequencyTolerancePPM)
            let correction = aged - reading.wall
            self.correction = correction
            self.errorBound = bound
            self.trueTime = aged
            self.reading = reading
            self.isAuthenticated = isAuthenticated
            self.method = policy.method
            let magnitude = abs(correction)
            if magnitude <= bound {
                action = .none
                refusal = nil
            } else if let refused = Self.refusal(
                correction: correction, bound: bound, trueTime: aged, isAuthenticated: isAuthenticated,
                floor: floor,
                otherDisciplines: otherDisciplines, policy: policy)
            {
                action = .refused
                refusal = refused
            } else {
                refusal = nil
                switch policy.method {
                case .step: action = .step
                case .slew: action = .slew
                case .automatic: action = magnitude <= policy.stepThreshold ? .slew : .step
                }
            }
        }

        /// The first guard that refuses a correction outside the interval, or nil.
        private static func refusal(
            correction: Duration, bound: Duration, trueTime: UnixTime, isAuthenticated: Bool,
            floor: UnixTime?,
            otherDisciplines: [TimeDiscipline], policy: SystemClockPolicy
        ) -> SystemClockRefusal? {
            let magnitude = abs(correction)
            if let floor, trueTime < floor {
                return SystemClockRefusal(
                    .beforeFloor,
                    "the trusted time \(ISO8601.format(trueTime, fractionDigits: 3)) lies before the time floor "
                        + "\(ISO8601.format(floor, fractionDigits: 0)), which authenticated time already proved past"
                )
            }
            if !isAuthenticated && magnitude > policy.maximumUnauthenticatedCorrection {
                return SystemClockRefusal(
                    .unauthenticatedCorrectionTooLarge,
                    "a correction of \(correction.signedFormattedSeconds) from unauthenticated time exceeds "
                        + "--max-step \(policy.maximumUnauthenticatedCorrection.formattedSeconds) "
                        + "(only NTS or Roughtime time may correct further)")
            }
            if bound * 2 > magnitude {
                return SystemClockRefusal(
                    .boundTooWide,
                    "the bound ± \(bound.formattedSeconds) is more than half the correction "
                        + "\(correction.signedFormattedSeconds): the corrected clock could be no closer to true time"
                )
            }
            if !otherDisciplines.isEmpty && !policy.overridesOtherDisciplines {
                return SystemClockRefusal(
                    .otherTimeDaemon,
                    "another time discipline controls the clock: "
                        + otherDisciplines.map(\.description).joined(separator: ", ")
                        + "; two disciplines fight (--force overrides)")
            }
            return nil
        }

        /// The maximum error to declare to the kernel once the decision is applied: the bound after a
        /// step, the bound plus the correction still to slew after a slew, nil otherwise.
        public var declaredMaximumError: Duration? {
            switch action {
            case .step: errorBound
            case .slew: errorBound + abs(correction)
            case .none, .refused: nil
            }
        }

        /// `step +34560000.000123 s (± 0.012 s)`, `none: inside ± 0.012 s`, `refused: before_floor: …`.
        public var description: String {
            switch action {
            case .none:
                "none: the system clock is \(correction.signedFormattedSeconds) off, inside ± \(errorBound.formattedSeconds)"
            case .slew, .step:
                "\(action) \(correction.signedFormattedSeconds) (± \(errorBound.formattedSeconds))"
            case .refused:
                "refused: \(refusal?.description ?? "")"
            }
        }
    }
}
