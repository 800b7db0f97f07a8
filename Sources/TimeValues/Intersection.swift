/// The intersection (Marzullo) algorithm of RFC 5905 §11.2.1: find the smallest number of
/// falsetickers `f < n/2` such that some time lies in the intervals of at least `n − f` sources.
/// The intervals must be about the same instant (age them to it first).
package enum Intersection {
    /// The outcome of the intersection algorithm.
    package struct Result: Hashable, Sendable {
        /// The times that at least `n − falsetickerCount` intervals agree on, at the first
        /// interval's instant.
        package var agreement: TrueTimeInterval
        /// Indices (into the input) of the sources whose intervals meet the agreement range.
        package var truechimers: [Int]
        /// Indices of the sources whose intervals do not: they cannot be right if the majority is.
        package var falsetickers: [Int]
    }

    /// Why no majority could be found.
    package enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// There were no sources.
        case noSources
        /// No time is covered by a strict majority of the sources.
        case noMajority(sources: Int, largestAgreement: Int)

        /// A readable explanation.
        package var description: String {
            switch self {
            case .noSources:
                return "no sources to select from"
            case .noMajority(let sources, let largest):
                return "no majority agreement: at most \(largest) of \(sources) sources agree on the time"
            }
        }
    }

    /// Runs the intersection algorithm.
    ///
    /// With one source, it is trusted (nothing can contradict it). With two, both must agree
    /// (their intervals must overlap), since one against one has no majority.
    package static func select(_ intervals: [TrueTimeInterval]) throws(Failure) -> Result {
        let n = intervals.count
        guard n > 0 else { throw .noSources }
        // Endpoints sorted by value; at equal values lower ends come first so touching intervals
        // count as overlapping.
        var endpoints: [(value: UnixTime, kind: Int)] = []
        endpoints.reserveCapacity(2 * n)
        for interval in intervals {
            endpoints.append((interval.earliest, -1))
            endpoints.append((interval.latest, +1))
        }
        endpoints.sort { $0.value < $1.value || ($0.value == $1.value && $0.kind < $1.kind) }
        var largest = 0
        var falsetickers = 0
        while 2 * falsetickers < n {
            let needed = n - falsetickers
            var count = 0
            var low: UnixTime?
            for endpoint in endpoints {
                count -= endpoint.kind
                largest = max(largest, count)
                if count >= needed {
                    low = endpoint.value
                    break
                }
            }
            count = 0
            var high: UnixTime?
            for endpoint in endpoints.reversed() {
                count += endpoint.kind
                if count >= needed {
                    high = endpoint.value
                    break
                }
            }
            if let low, let high, low <= high {
                let agreement = TrueTimeInterval(earliest: low, latest: high, instant: intervals[0].instant)
                var truechimers: [Int] = []
                var liars: [Int] = []
                for (index, interval) in intervals.enumerated() {
                    if interval.overlaps(agreement) {
                        truechimers.append(index)
                    } else {
                        liars.append(index)
                    }
                }
                return Result(agreement: agreement, truechimers: truechimers, falsetickers: liars)
            }
            falsetickers += 1
        }
        throw .noMajority(sources: n, largestAgreement: largest)
    }
}
