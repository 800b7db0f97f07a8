import Foundation

/// Cases of one test that only wait on I/O (a peer's replies, a child process, a timeout) run side
/// by side: each case's blocking work on a thread of its own, never on one of Swift concurrency's
/// cooperative threads (only two on this machine), at most `lanes` at a time.
///
/// Only the blocking work runs there: a case returns what it saw, and the test checks it on its
/// own task, where an expectation is recorded against the test (and names its case).
package enum BlockingCases {
    /// What a case threw, with the case's name.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Runs `body` for every case, `lanes` at a time, and returns each case with its result, in the
    /// order of `cases`; an error a case throws is rethrown as a ``Failure`` naming the case.
    package static func run<Case: Sendable, Result: Sendable>(
        _ cases: [Case], lanes: Int, _ body: @escaping @Sendable (Case) throws -> Result
    ) async throws -> [(Case, Result)] {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var results: [Int: Result] = [:]
            var next = 0
            func start() {
                guard next < cases.count else { return }
                let (index, item) = (next, cases[next])
                next += 1
                group.addTask {
                    do {
                        // Awaited into a local first: a tuple that awaits its second element can
                        // lose its first under Swift 6.3's optimiser (Tools/check-split-tuples.sh).
                        let result = try await onThread { try body(item) }
                        return (index, result)
                    } catch {
                        throw Failure(description: "\(item): \(error)")
                    }
                }
            }
            for _ in 0..<max(1, lanes) { start() }
            while let (index, result) = try await group.next() {
                results[index] = result
                start()
            }
            return cases.indices.compactMap { index in results[index].map { (cases[index], $0) } }
        }
    }

    /// Runs `body` on a thread of its own and returns (or throws) what it did. Not on Dispatch's
    /// global queue: on Linux its pool grows by about one thread a second when every thread blocks,
    /// so ten blocking cases started together would finish a second apart.
    package static func onThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result)
        async throws -> Result
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
        }
    }

    /// Runs `body` on a thread of its own, inside `group` (entered now, left when it returns).
    package static func onThread(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }
}
