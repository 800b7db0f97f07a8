import Roughtime
import SNTP
import TimeValues

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
