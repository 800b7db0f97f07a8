import Foundation
import LoopbackServers
import NetworkClock

/// Small statistics and table helpers shared by the benchmarks.
enum Stats {
    /// The `q`-quantile (0…1) of `values` by linear interpolation; 0 for an empty list.
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] * (1 - fraction) + sorted[upper] * fraction
    }

    static func median(_ values: [Double]) -> Double { quantile(values, 0.5) }
}

/// Fixed-width text tables.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0
                    ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}

/// Formats seconds as milliseconds with three decimals.
func ms(_ seconds: Double) -> String {
    String(format: "%.3f", seconds * 1000)
}

/// Runs `body` for each element on its own thread (the work blocks in `poll`, so more threads than
/// cores is right) and returns the results in order.
func parallelMap<T: Sendable, R: Sendable>(_ items: [T], _ body: @escaping @Sendable (T) -> R) -> [R] {
    let results = ResultsBox<R>(count: items.count)
    let group = DispatchGroup()
    for (index, item) in items.enumerated() {
        group.enter()
        Thread.detachNewThread {
            results.set(index, body(item))
            group.leave()
        }
    }
    group.wait()
    return results.values
}

final class ResultsBox<R: Sendable>: @unchecked Sendable {
    private var storage: [R?]
    private let lock = NSLock()
    init(count: Int) { storage = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: R) { lock.withLock { storage[index] = value } }
    var values: [R] { lock.withLock { storage.compactMap { $0 } } }
}
