import ClockCore
import TimeValues

/// What is known, before the selection, about the leap at a month-end midnight, for mapping
/// smearing servers (``SmearMapping``): a valid leap-second table decides; else the stepping
/// servers' unanimous announcement and the held anchor's scheduled leap, every sign either allows
/// (both when they differ); else nothing, and every sign stays possible.
package struct SmearKnowledge: Sendable {
    /// A leap-second table read for this sync; used only while valid.
    package var table: LeapSecondTable?
    /// The held anchor's leap knowledge; only a scheduled leap counts (its horizon also marks month
    /// ends the bound already covers, which says nothing of the leap there).
    package var anchor: LeapSchedule?
    /// The leap indicator every stepping server voting agrees on (+1, −1, 0), and the true time it
    /// was announced around; nil for none or a split vote.
    package var announced: (sign: Int64, at: UnixTime)?

    /// Nothing known.
    package init(
        table: LeapSecondTable? = nil, anchor: LeapSchedule? = nil,
        announced: (sign: Int64, at: UnixTime)? = nil
    ) {
        self.table = table
        self.anchor = anchor
        self.announced = announced
    }

    /// The signs the leap at `midnight` may have, for an interval whose latest time is `latest`.
    package func signs(at midnight: Int64, latest: UnixTime) -> Set<Int64> {
        if let table, table.isValid(at: latest), let sign = table.leap(endingAt: midnight) { return [sign] }
        var known: Set<Int64> = []
        if let anchor, anchor.midnight == midnight { known.insert(anchor.sign) }
        if let announced {
            // An announced leap is for the current month's end; none covers the current day (RFC 5905).
            let time = announced.at
            if announced.sign != 0, LeapSchedule.monthEnd(after: time) == midnight {
                known.insert(announced.sign)
            } else if announced.sign == 0, LeapSchedule.nextMidnight(after: time) == midnight,
                LeapSchedule.monthEnd(after: time) == midnight
            {
                known.insert(0)
            }
        }
        return known.isEmpty ? [1, 0, -1] : known
    }
}
