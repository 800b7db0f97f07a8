import Synchronization

@testable import NetworkClock

/// Every event of a clock, in order, with the few views the lifecycle tests ask about.
final class ClockEventLog: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[ClockEvent]>([])
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    /// Starts recording `clock`'s events.
    init(_ clock: NetworkClock) {
        let stream = clock.events()
        let storage = self.storage
        task = Task {
            for await event in stream { storage.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    /// Every event so far.
    var all: [ClockEvent] { storage.events.withLock { $0 } }
    var syncs: Int { all.filter { if case .synced = $0 { true } else { false } }.count }
    var failures: Int { all.filter { if case .syncFailed = $0 { true } else { false } }.count }
    var networkChanges: Int { all.filter { if case .networkChanged = $0 { true } else { false } }.count }
    var resumes: [Duration] { all.compactMap { if case .resumed(let asleep) = $0 { asleep } else { nil } } }
    var steps: [Duration] {
        all.compactMap { if case .wallClockStepped(let step) = $0 { step } else { nil } }
    }
    var backoffs: [(delay: Duration, failures: Int)] {
        all.compactMap { if case .backoff(let delay, let failures) = $0 { (delay, failures) } else { nil } }
    }
}
