/// Syncing in the background (``BackgroundRefresh``).
extension NetworkClock {
    /// Starts syncing in the background: at once when there is no anchor (or only a restored one),
    /// then every ``RefreshPolicy/interval`` (jittered), backing off exponentially after failures.
    /// Calling it again while running does nothing.
    public func start() {
        if case .success(let restored) = restoreResult { broadcaster.emit(.restored(restored)) }
        if case .failure(let error) = restoreResult, error.code != .missing {
            broadcaster.emit(.restoreFailed(error))
        }
        refresh.start(
            self,
            initialDelay: BackgroundRefresh.initialDelay(for: clock.now(), policy: configuration.refresh))
    }

    /// Stops background syncing. A background sync in progress is cancelled: it ends within one
    /// poll slice (50 ms) and its successor never starts.
    public func stop() {
        refresh.stop()
    }

    /// Whether background syncing is running.
    public var isRunning: Bool { refresh.isRunning }
}
