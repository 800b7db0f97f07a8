#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import ClockCore
import TimeValues

extension SyncReport {
    /// What the sync learnt about the next leap second, as an estimate at ``trueTime`` reports it
    /// (`TimeEstimate.Leap`): announced by the deciding sources or by a valid table, else unknown.
    public var leap: TimeEstimate.Leap {
        TimeEstimate.Leap(PublishedLeap(leapSchedule, anchorTime: trueTime, smear: false))
    }

    /// Applies the leap-second table read from `path` (IERS/NIST `leap-seconds.list`,
    /// ``readLeapTable(at:)``): a valid one decides (the sources that contradict it are named); a
    /// missing, expired or damaged one is ignored with a note in ``leapTableNote``.
    package mutating func applyLeapTable(_ read: Result<LeapSecondTable, LeapTableNote>, from path: String) {
        let table: LeapSecondTable
        switch read {
        case .success(let read): table = read
        case .failure(let note):
            leapTableNote = note.description
            return
        }
        guard table.isValid(at: trueTime + errorBound) else {
            leapTableNote =
                "leap-second table \(path): ignored, expired \(ISO8601.format(table.expires, fractionDigits: 0))"
            return
        }
        leapTableNote = nil
        leapSchedule = LeapSchedule.table(table, at: trueTime)
        let contradicting = LeapVote.contradicting(leapVoters, table: table, at: trueTime)
        leapDisagreeing = Array(Set(leapDisagreeing + contradicting)).sorted()
    }

    /// The leap-second table at `path`, parsed and its checksum checked (its expiry is checked where
    /// it is used); a note saying why not when it is unreadable or damaged.
    package static func readLeapTable(at path: String) -> Result<LeapSecondTable, LeapTableNote> {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
            return .failure(LeapTableNote(description: "leap-second table \(path): not readable"))
        }
        do {
            return .success(try LeapSecondTable(parsing: String(decoding: data, as: UTF8.self)))
        } catch {
            return .failure(LeapTableNote(description: "leap-second table \(path): ignored, \(error)"))
        }
    }

    /// Why a leap-second table was not used.
    package struct LeapTableNote: Error {
        /// The note, naming the file.
        package var description: String
    }
}
