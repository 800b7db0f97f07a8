import NetworkClock

/// Anchor-store test helpers.
extension Result where Failure == AnchorStoreError {
    /// The error code, or `nil` on success.
    var failureCode: AnchorStoreError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
