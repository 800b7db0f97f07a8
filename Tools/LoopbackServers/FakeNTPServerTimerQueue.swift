import SNTP
import TimeValues

extension FakeNTPServer {
    /// Work to do at given instants, kept in time order; work due at the same instant runs in the
    /// order it was added. Confined to the server thread.
    struct TimerQueue<Element> {
        private var entries: [(due: MonotonicInstant, element: Element)] = []

        /// Whether nothing is scheduled.
        var isEmpty: Bool { entries.isEmpty }

        /// When the earliest work is due.
        var nextDue: MonotonicInstant? { entries.first?.due }

        /// Schedules `element` at `due`, after anything already scheduled at the same instant.
        mutating func insert(_ element: Element, at due: MonotonicInstant) {
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].due <= due { low = middle + 1 } else { high = middle }
            }
            entries.insert((due, element), at: low)
        }

        /// Removes and returns the earliest element if it is due at `now`.
        mutating func popDue(now: MonotonicInstant) -> Element? {
            guard let first = entries.first, first.due <= now else { return nil }
            return entries.removeFirst().element
        }

        /// Removes and returns everything, in time order.
        mutating func removeAll() -> [Element] {
            defer { entries.removeAll() }
            return entries.map(\.element)
        }
    }
}
