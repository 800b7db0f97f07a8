import Roughtime
import SNTP
import TimeBase

extension SyncReport.Server {
    /// What only a Roughtime server reports: its last valid reply.
    public struct Roughtime: Hashable, Sendable {
        /// The address that answered, or the last one tried.
        package var address: String?
        /// The protocol version of its last valid reply (`RFC 10049`, `draft-12`,
        /// `Google-Roughtime`, …).
        public package(set) var version: String?
        /// The signed midpoint of its last valid reply.
        public package(set) var midpoint: UnixTime?
        /// The signed radius of its last valid reply.
        public package(set) var radius: Duration?
        /// The round trip of its last valid reply, from the first transmission of its request.
        public package(set) var roundTrip: Duration?

        /// Creates details.
        package init(
            address: String?, version: String?, midpoint: UnixTime?, radius: Duration?, roundTrip: Duration?
        ) {
            self.address = address
            self.version = version
            self.midpoint = midpoint
            self.radius = radius
            self.roundTrip = roundTrip
        }
    }

    /// The report of one server of a finished Roughtime query.
    package init(_ report: RoughtimeServerReport) {
        self.init(
            name: report.name, status: SyncReport.SourceStatus(rawValue: report.status.code),
            reason: report.status.error?.description,
            details: .roughtime(
                Roughtime(
                    address: report.address, version: report.version?.description, midpoint: report.midpoint,
                    radius: report.radius, roundTrip: report.roundTrip)))
    }
}

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
