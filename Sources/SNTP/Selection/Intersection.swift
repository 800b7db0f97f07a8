/// The intersection (Marzullo) algorithm of RFC 5905 §11.2.1: find the smallest number of
/// falsetickers `f < n/2` such that some offset lies in the intervals of at least `n − f` sources.
package enum Intersection {
    /// The outcome of the intersection algorithm.
    package struct Result: Hashable, Sendable {
        /// The range of offsets that at least `n − falsetickerCount` intervals agree on.
        package var agreement: OffsetInterval
        /// Indices (into the input) of the sources whose intervals meet the agreement range.
        package var truechimers: [Int]
        /// Indices of the sources whose intervals do not: they cannot be right if the majority is.
        package var falsetickers: [Int]
    }

    /// Why no majority could be found.
    package enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// There were no sources.
        case noSources
        /// No offset is covered by a strict majority of the sources.
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
    package static func select(_ intervals: [OffsetInterval]) throws(Failure) -> Result {
        let n = intervals.count
        guard n > 0 else { throw .noSources }
        // Endpoints sorted by value; at equal values lower ends come first so touching intervals
        // count as overlapping.
        var endpoints: [(value: Duration, kind: Int)] = []
        endpoints.reserveCapacity(2 * n)
        for interval in intervals {
            endpoints.append((interval.lower, -1))
            endpoints.append((interval.upper, +1))
        }
        endpoints.sort { $0.value < $1.value || ($0.value == $1.value && $0.kind < $1.kind) }
        var largest = 0
        var falsetickers = 0
        while 2 * falsetickers < n {
            let needed = n - falsetickers
            var count = 0
            var low: Duration?
            for endpoint in endpoints {
                count -= endpoint.kind
                largest = max(largest, count)
                if count >= needed {
                    low = endpoint.value
                    break
                }
            }
            count = 0
            var high: Duration?
            for endpoint in endpoints.reversed() {
                count += endpoint.kind
                if count >= needed {
                    high = endpoint.value
                    break
                }
            }
            if let low, let high, low <= high {
                let agreement = OffsetInterval(lower: low, upper: high)
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
