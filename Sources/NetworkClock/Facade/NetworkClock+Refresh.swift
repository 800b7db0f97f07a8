import TimeValues

/// Syncing in the background (``BackgroundRefresh``).
extension NetworkClock {
    /// Starts syncing in the background. With a need (``RefreshPolicy/maximumBound``): at once only
    /// when the clock's time does not meet it (no anchor, a bound too wide, or not authenticated
    /// when authenticated sources are configured), then just before the bound would reach it.
    /// Without one: at once when there is no anchor (or only a restored one), then every
    /// ``RefreshPolicy/interval`` (jittered). Either way backing off exponentially after failures.
    /// Calling it again while running does nothing.
    ///
    /// On Linux it also watches the machine's lifecycle until ``stop()``: a resume from suspend
    /// (``ClockEvent/resumed(suspendedFor:)``) syncs at once when the clock's time no longer meets
    /// the need (without one, when the anchor is older than the interval); a network change
    /// (``ClockEvent/networkChanged``) retries a failing or backing-off sync within seconds; a
    /// wall-clock step (``ClockEvent/wallClockStepped(by:)``) is only reported. No sync comes
    /// sooner than ``RefreshPolicy/minimumInterval`` after the last.
    public func start() {
        start(lifecycleReadings: LifecycleReading.kernel)
    }

    /// Starts as ``start()`` does, with the lifecycle monitor reading the kernel's clocks through
    /// `lifecycleReadings` (a simulated resume in tests), or with no monitor when it is nil (tests
    /// whose schedule a route change on the host must not move).
    package func start(lifecycleReadings: (@Sendable () -> LifecycleReading)?) {
        if case .success(let restored) = restoreResult { broadcaster.emit(.restored(restored)) }
        if case .failure(let error) = restoreResult, error.code != .missing {
            broadcaster.emit(.restoreFailed(error))
        }
        refresh.start(
            self, initialDelay: BackgroundRefresh.initialDelay(for: self),
            lifecycleReadings: lifecycleReadings)
    }

    /// Syncs only if the clock's time does not meet `maximumBound` (by default the refresh policy's
    /// ``RefreshPolicy/maximumBound``; with neither, always): returns the trusted time at once, with
    /// no traffic, when its bound is within it and it is authenticated where authenticated sources
    /// are configured.
    /// - Throws: ``SyncError`` when a sync was needed and gave no time.
    @discardableResult
    public func syncIfNeeded(maximumBound: Duration? = nil) async throws(SyncError) -> TimeEstimate? {
        if let need = maximumBound ?? configuration.refresh.maximumBound,
            let bound = neededBound(after: .zero),
            bound <= need
        {
            return now()
        }
        try await sync()
        return now()
    }

    /// The bound of the clock's time `later` from now, when that time is the kind the configuration
    /// asks for (authenticated when NTS or Roughtime servers are configured and downgrades are not
    /// allowed); nil otherwise.
    package func neededBound(after later: Duration) -> Duration? {
        guard let estimate = clock.estimate(afterElapsed: later) else { return nil }
        let policy = configuration.syncPolicy
        if policy.usesAuthenticatedSources && !configuration.allowsDowngrade && !estimate.isAuthenticated {
            return nil
        }
        return estimate.errorBound
    }

    /// Stops background syncing. A background sync in progress is cancelled: it ends within one
    /// poll slice (50 ms) and its successor never starts.
    public func stop() {
        refresh.stop()
    }

    /// Whether background syncing is running.
    public var isRunning: Bool { refresh.isRunning }
}
