extension SyncError {
    /// Throws ``SyncError/cancelled`` when the current task has been cancelled.
    static func checkCancellation() throws(SyncError) {
        if Task.isCancelled { throw .cancelled }
    }
}
