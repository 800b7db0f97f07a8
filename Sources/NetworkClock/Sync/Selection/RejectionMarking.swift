extension Array where Element == SyncReport.Server {
    /// Marks the reports (by index) of the candidates the selection ruled out; indices outside the
    /// list (Roughtime's candidate) are left to ``SignedTime/apply(_:)``.
    mutating func mark(_ rejected: [Int: Rejection]) {
        for (index, rejection) in rejected where indices.contains(index) {
            switch rejection {
            case .unauthenticated: self[index].status = .unauthenticated
            case .falseticker: self[index].status = .falseticker
            }
            self[index].reason = rejection.reason
        }
    }
}
