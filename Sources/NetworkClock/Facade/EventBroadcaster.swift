import SNTP
import Synchronization
import TimeValues

/// Delivers ``ClockEvent``s to every live `AsyncStream` subscriber. A subscriber that stops
/// iterating is removed; a slow one keeps only the newest events (bounded buffer).
final class EventBroadcaster: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<ClockEvent>.Continuation] = [:]
    }

    private let state = Mutex(State())
    private let bufferSize: Int

    init(bufferSize: Int = 64) {
        self.bufferSize = bufferSize
    }

    func subscribe() -> AsyncStream<ClockEvent> {
        let (stream, continuation) = AsyncStream<ClockEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(bufferSize))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func emit(_ event: ClockEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    func finish() {
        let subscribers = state.withLock { state in
            let all = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return all
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
