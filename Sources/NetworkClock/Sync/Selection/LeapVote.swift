import ClockCore
import TimeValues

/// The leap second the sources that decided the time announce, decided like the time: the voters
/// (the selected source and the survivors that carry a leap indicator: NTP and NTS) must all agree;
/// with authenticated sources configured only the authenticated ones vote. A split vote announces
/// nothing (the clock then treats the month's end as unknown and widens its bound after it) and
/// names the voters that differ from the most common announcement (all of them on a tie).
struct LeapVote: Sendable, Hashable {
    /// One deciding source's announcement.
    struct Voter: Sendable, Hashable {
        var name: String
        /// +1 insert, −1 delete, 0 none (the leap indicator 1, 2 or 0).
        var sign: Int64
        var isAuthenticated: Bool
    }

    /// The announcement every voter agrees on; nil with no voter or a split vote.
    var agreed: Int64?
    /// The voters that differ from the most common announcement (all of them on a tie).
    var disagreeing: [String]

    init(_ voters: [Voter], authenticatedOnly: Bool) {
        let counted = authenticatedOnly ? voters.filter(\.isAuthenticated) : voters
        let tally = Dictionary(grouping: counted, by: \.sign)
        if tally.count == 1, let sign = tally.keys.first {
            (agreed, disagreeing) = (sign, [])
            return
        }
        agreed = nil
        let most = tally.values.map(\.count).max() ?? 0
        let leaders = tally.filter { $0.value.count == most }
        let majority = leaders.count == 1 ? leaders.keys.first : nil
        disagreeing = counted.filter { $0.sign != majority }.map(\.name)
    }

    /// The voters whose announcement contradicts a valid `table` at true time `time`: a warning
    /// for a month end the table has no leap at (or the wrong sign), or none where it has one.
    static func contradicting(_ voters: [Voter], table: LeapSecondTable, at time: UnixTime) -> [String] {
        let monthEnd = LeapSchedule.monthEnd(after: time)
        let midnight = LeapSchedule.nextMidnight(after: time)
        return voters.filter { voter in
            if voter.sign != 0 { return table.leap(endingAt: monthEnd).map { $0 != voter.sign } ?? false }
            return table.leap(endingAt: midnight).map { $0 != 0 } ?? false
        }.map(\.name)
    }
}
