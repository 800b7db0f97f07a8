import Roughtime
import SNTP
import TimeValues

extension SyncReport {
    /// What the Roughtime servers of a sync found together: the interval their signed answers
    /// agree on, the liars, and the proof of their lies when the chain holds one. Each server's
    /// own part is among the report's ``SyncReport/servers``.
    public struct RoughtimeSummary: Hashable, Sendable, CustomStringConvertible {
        /// The offsets (true time − local wall clock) the signed answers of a majority agree on, at
        /// the query's last reply; nil without an agreement.
        public package(set) var agreedOffsets: ClosedRange<Duration>?
        /// Why there is no agreement (`no_majority: …`, `not_enough_replies: …`); nil with one.
        public package(set) var error: String?
        /// The names of the servers whose validly signed time contradicts the majority.
        public package(set) var liars: [String]
        /// Proof that a server lied, as JSON in the format `roughly` and RFC 10049 §8.4 tools
        /// read (a list of `{rand, request, response, publicKey}`, base64): every reply verifies
        /// and two of them contradict their order. Nil when the chain proves nothing.
        public package(set) var malfeasanceReport: String?
        /// How many servers were asked, and how many agreed: for ``description``.
        package var asked: Int
        package var agreeing: Int

        /// The summary of a finished query.
        package init(_ result: RoughtimeQueryResult) {
            switch result.agreement {
            case .success(let agreement):
                agreedOffsets = agreement.offsets
                error = nil
            case .failure(let failure):
                agreedOffsets = nil
                error = failure.description
            }
            liars = result.liars
            malfeasanceReport = result.malfeasanceReport?.listJSON
            asked = result.servers.count
            agreeing = result.servers.filter { $0.status == .agreed }.count
        }

        /// `roughtime: offset … ± … (k of n servers agree)` or `roughtime: no agreed time: …`, with
        /// the liars.
        public var description: String {
            var text: String
            if let agreedOffsets {
                let middle =
                    agreedOffsets.lowerBound + (agreedOffsets.upperBound - agreedOffsets.lowerBound) / 2
                let radius = (agreedOffsets.upperBound - agreedOffsets.lowerBound) / 2
                text = "roughtime: offset \(middle.signedFormattedSeconds) ± \(radius.formattedSeconds)"
                text += " (\(agreeing) of \(asked) servers agree)"
            } else {
                text = "roughtime: no agreed time: \(error ?? "no reply")"
            }
            if !liars.isEmpty { text += "; liars: " + liars.joined(separator: ", ") }
            return text
        }
    }
}
