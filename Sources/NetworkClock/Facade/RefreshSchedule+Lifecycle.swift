/// How a running clock answers the machine's lifecycle events: when, if at all, the next sync
/// should come sooner than the schedule has it. Pure, like the rest of ``RefreshSchedule``.
extension RefreshSchedule {
    /// What the clock knows when an event comes.
    package struct LifecycleContext {
        /// Time since the last request to a server (the last sync began), nil before the first.
        package var sinceLastRequest: Duration?
        /// The age of the anchor the clock's time comes from; nil without one, or with only a
        /// restored one (the loop has not synced yet).
        package var anchorAge: Duration?
        /// The bound of the clock's time `d` from now, when it is the kind the configuration asks
        /// for (``NetworkClock/neededBound(after:)``).
        package var boundAfter: (Duration) -> Duration?

        /// A context of its parts.
        package init(
            sinceLastRequest: Duration?, anchorAge: Duration?, boundAfter: @escaping (Duration) -> Duration?
        ) {
            self.sinceLastRequest = sinceLastRequest
            self.anchorAge = anchorAge
            self.boundAfter = boundAfter
        }
    }

    /// A network change retries a failing sync after a draw from this range: soon, but after the
    /// network has had a moment to come up (addresses, then routes, then name servers), and spread
    /// so that a fleet whose network came back at once does not ask in the same second.
    package static let networkRetry = Duration.seconds(2)...Duration.seconds(6)

    /// The delay from now to the sync `event` calls for, or nil when it calls for none (the
    /// scheduled one stands; the caller only ever brings it forward):
    /// - ``ClockEvent/resumed(suspendedFor:)``: with a need (``NetworkClock/RefreshPolicy/maximumBound``),
    ///   a sync at once when the time no longer meets it, else one for just before the bound, which
    ///   grew while asleep, reaches it (jittered earlier); without one, a sync at once when there is
    ///   no anchor or it is older than the interval.
    /// - ``ClockEvent/networkChanged``: while syncs fail or back off (the need not met), a retry
    ///   after a draw from ``networkRetry``; nothing for a healthy clock.
    /// - ``ClockEvent/wallClockStepped(by:)`` and anything else: nil. The clock's time never
    ///   depended on the wall clock.
    ///
    /// Never sooner than the minimum interval since the last request: route events come in bursts.
    package func delay(
        reactingTo event: ClockEvent, in context: LifecycleContext,
        using random: inout some RandomNumberGenerator
    ) -> Duration? {
        let wanted: Duration
        switch event {
        case .resumed:
            guard let delay = resumeDelay(in: context, using: &random) else { return nil }
            wanted = delay
        case .networkChanged:
            guard consecutiveFailures > 0 else { return nil }
            let (low, high) = (Self.networkRetry.lowerBound, Self.networkRetry.upperBound)
            wanted = low + (high - low) * Double.random(in: 0...1, using: &random)
        default:
            return nil
        }
        guard let since = context.sinceLastRequest else { return max(wanted, .zero) }
        return max(wanted, max(policy.minimumInterval, .zero) - since, .zero)
    }

    /// The delay to the sync a resume calls for (see ``delay(reactingTo:in:using:)``), before the
    /// minimum interval.
    private func resumeDelay(in context: LifecycleContext, using random: inout some RandomNumberGenerator)
        -> Duration?
    {
        guard let need = policy.maximumBound else {
            guard let age = context.anchorAge, age < policy.interval else { return .zero }
            return nil
        }
        guard let within = Self.timeWithin(need, boundAfter: context.boundAfter) else { return .zero }
        let jitter = min(max(policy.jitter, 0), 0.5)
        return within * (1 - Double.random(in: 0...jitter, using: &random))
    }
}
