import NetClockPlatform
import TimeValues

extension NetworkClock {
    /// What to do to the system clock: nothing, a slew, a step, or a refusal with its reason. A pure
    /// value, computed from the clock's trusted time at one reading of the system clock
    /// (``SystemClockOffset``); ``NetworkClock/applyToSystemClock(_:)`` carries it out.
    ///
    /// The rules, in order:
    /// 1. The trusted interval at the reading is cut to the time floor (the one floor rule: only its
    ///    part from the floor on can hold); **refused** `before_floor` when none of it is left.
    ///    ``trueTime`` ± ``errorBound`` is what remains, and ``correction`` = ``trueTime`` − the
    ///    system clock.
    /// 2. **None** when the system clock lies inside that interval (|correction| ≤ bound), whatever
    ///    the method: nothing is corrected, but the kernel is told how good the clock is (unless
    ///    another discipline was found and may not be overridden).
    /// 3. **Refused** `unauthenticated_correction_too_large` when the time is not authenticated and
    ///    |correction| exceeds ``SystemClockPolicy/maximumUnauthenticatedCorrection``; `bound_too_wide`
    ///    when the bound exceeds half the correction (below that the corrected clock, off by at most
    ///    the bound, is certain to be closer to true time than the clock was, off by at least
    ///    |correction| − bound); `other_time_daemon` when another discipline was found and may not be
    ///    overridden.
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
        /// Whether this decision may tell the kernel the clock's status: no other discipline was
        /// found, or the policy overrides them.
        private let mayDeclareStatus: Bool

        /// Decides from the clock's trusted time at a reading of the system clock: its interval, its
        /// authentication and the reading's own uncertainty.
        public init(
            offset: SystemClockOffset, floor: UnixTime?, otherDisciplines: [TimeDiscipline],
            policy: SystemClockPolicy
        ) {
            self.init(
                interval: TrueTimeInterval(
                    time: offset.trustedTime.time, bound: offset.errorBound, instant: offset.reading.monotonic
                ),
                isAuthenticated: offset.isAuthenticated, reading: offset.reading, floor: floor,
                otherDisciplines: otherDisciplines, policy: policy)
        }

        /// Decides from a trusted interval (`trueTime` ± `errorBound` at the monotonic instant
        /// `instant`, carried to the reading at the policy's frequency tolerance), a reading of the
        /// system clock, the time floor, the other disciplines found and a policy.
        public init(
            trueTime: UnixTime, at instant: MonotonicInstant, errorBound: Duration, isAuthenticated: Bool,
            reading: SystemClockReading, floor: UnixTime?, otherDisciplines: [TimeDiscipline],
            policy: SystemClockPolicy
        ) {
            let aged = TrueTimeInterval(time: trueTime, bound: errorBound, instant: instant)
                .aged(to: reading.monotonic, tolerancePPM: policy.frequencyTolerancePPM)
            self.init(
                interval: TrueTimeInterval(
                    time: aged.midpoint, bound: aged.radius + reading.uncertainty, instant: aged.instant),
                isAuthenticated: isAuthenticated, reading: reading, floor: floor,
                otherDisciplines: otherDisciplines, policy: policy)
        }

        /// Decides from `interval`, the trusted interval at `reading`'s instant.
        private init(
            interval: TrueTimeInterval, isAuthenticated: Bool, reading: SystemClockReading, floor: UnixTime?,
            otherDisciplines: [TimeDiscipline], policy: SystemClockPolicy
        ) {
            let kept: TrueTimeInterval? = if let floor { interval.notBefore(floor) } else { interval }
            let trusted = kept ?? interval
            let correction = trusted.midpoint - reading.wall
            self.correction = correction
            self.errorBound = trusted.radius
            self.trueTime = trusted.midpoint
            self.reading = reading
            self.isAuthenticated = isAuthenticated
            self.method = policy.method
            self.mayDeclareStatus = otherDisciplines.isEmpty || policy.overridesOtherDisciplines
            let magnitude = abs(correction)
            if kept == nil, let floor {
                action = .refused
                refusal = SystemClockRefusal(
                    .beforeFloor,
                    "the trusted interval \(interval) lies wholly before the time floor "
                        + "\(ISO8601.format(floor, fractionDigits: 0)), which authenticated time already proved past"
                )
            } else if magnitude <= trusted.radius {
                action = .none
                refusal = nil
            } else if let refused = Self.refusal(
                correction: correction, bound: trusted.radius, isAuthenticated: isAuthenticated,
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
            correction: Duration, bound: Duration, isAuthenticated: Bool, otherDisciplines: [TimeDiscipline],
            policy: SystemClockPolicy
        ) -> SystemClockRefusal? {
            let magnitude = abs(correction)
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
        /// step; the bound plus the correction's magnitude after a slew (still to be slewed) and when
        /// nothing is corrected (the clock lies that far from the trusted time, which lies within the
        /// bound of the truth) unless another discipline owns the clock's status; nil for a refusal.
        public var declaredMaximumError: Duration? {
            switch action {
            case .step: errorBound
            case .slew: errorBound + abs(correction)
            case .none: mayDeclareStatus ? errorBound + abs(correction) : nil
            case .refused: nil
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
