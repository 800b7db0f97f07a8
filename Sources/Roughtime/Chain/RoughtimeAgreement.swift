import NetClockPlatform
import TimeValues

/// The time a majority of servers agrees on: the intersection (Marzullo's algorithm, as NTP
/// selects, RFC 5905 §11.2.1) of their intervals, each carried to a common local instant.
///
/// Every interval must contain the true time when its server is honest (see
/// ``TrueTimeInterval``), so if at most a minority lies, the true time lies in the range that a
/// majority's intervals share. Servers whose intervals miss that range are falsetickers.
package struct RoughtimeAgreement: Hashable, Sendable, CustomStringConvertible {
    /// The agreed time: the true time at `interval.instant` lies in the interval.
    package var interval: TrueTimeInterval
    /// The local wall clock's reading at `interval.instant`.
    package var wall: UnixTime
    /// The agreed time as offsets from the local wall clock (true time − local time).
    package var offsets: ClosedRange<Duration> { interval.offsets(fromWall: wall) }
    /// Indices of the servers whose intervals meet the agreed range.
    package var agreeing: [Int]
    /// Indices of the servers with valid replies outside it.
    package var falsetickers: [Int]
    /// How many servers gave a valid reply.
    package var valid: Int

    /// `time ± radius (k of n servers agree)`.
    package var description: String {
        "\(interval) (\(agreeing.count) of \(valid) servers agree)"
    }

    /// Selects the agreed time from `intervals` (server index → interval, all about `reference`),
    /// with `wall` the local wall clock's reading at `reference`.
    /// - Throws: `not_enough_replies` when fewer than `minimumAgreeing` servers (at least one) agree
    ///   or none gave a valid reply; `no_majority` when no strict majority of the valid intervals
    ///   overlaps.
    package static func select(
        _ intervals: [Int: TrueTimeInterval], wall: UnixTime, reference: MonotonicInstant,
        minimumAgreeing: Int
    ) throws(RoughtimeError) -> RoughtimeAgreement {
        let indices = intervals.keys.sorted()
        let minimum = max(1, minimumAgreeing)
        guard indices.count >= minimum else {
            throw RoughtimeError(
                .notEnoughReplies, "\(indices.count) servers answered validly; at least \(minimum) must agree"
            )
        }
        let result: Intersection.Result
        do throws(Intersection.Failure) {
            result = try Intersection.select(indices.compactMap { intervals[$0] })
        } catch {
            throw RoughtimeError(.noMajority, error.description)
        }
        let agreeing = result.truechimers.map { indices[$0] }
        guard agreeing.count >= minimum else {
            throw RoughtimeError(
                .notEnoughReplies,
                "\(agreeing.count) of \(indices.count) servers agree; at least \(minimum) must")
        }
        return RoughtimeAgreement(
            interval: result.agreement, wall: wall, agreeing: agreeing,
            falsetickers: result.falsetickers.map { indices[$0] },
            valid: indices.count)
    }
}
