import Testing

/// Runs `body` for each case at once, in child tasks of the calling test (so its expectations count
/// for it): for cases that only wait on their own peers or child processes, where running beside
/// each other changes nothing asserted. What a case throws is recorded naming the case, and the
/// other cases still run.
func concurrently<Case: Sendable & CustomStringConvertible>(
    _ cases: [Case], _ body: @escaping @Sendable (Case) async throws -> Void
) async {
    await withTaskGroup(of: Void.self) { group in
        for item in cases {
            group.addTask {
                do { try await body(item) } catch { Issue.record("\(item): \(error)") }
            }
        }
    }
}
