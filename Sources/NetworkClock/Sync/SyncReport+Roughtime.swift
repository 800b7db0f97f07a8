import Roughtime
import SNTP
import TimeBase

extension SyncReport {
    /// The Roughtime part of a sync: the interval the servers' signed answers agree on, each
    /// server's part, the liars, and the proof of their lies when the chain holds one.
    public struct RoughtimeSource: Hashable, Sendable, CustomStringConvertible {
        /// One Roughtime server's part.
        public struct Server: Hashable, Sendable, CustomStringConvertible {
            /// The server's name, from the configuration.
            public package(set) var name: String
            /// The address that answered, or the last one tried.
            public package(set) var address: String?
            /// `agreed`, `falseticker` (validly signed, but against the majority), `unresolved` (no
            /// majority to judge it by), `rejected` (every reply refused), `timed_out` or `failed`.
            public package(set) var status: String
            /// Why a reply was refused or the server could not be asked (`bad_signature`, …).
            public package(set) var reason: String?
            /// The protocol version of its last valid reply (`RFC 10049`, `draft-12`,
            /// `Google-Roughtime`, …).
            public package(set) var version: String?
            /// The signed midpoint of its last valid reply.
            public package(set) var midpoint: UnixTime?
            /// The signed radius of its last valid reply.
            public package(set) var radius: Duration?
            /// The round trip of its last valid reply, from the first transmission of its request.
            public package(set) var roundTrip: Duration?

            /// `name (address): status`, with the signed time when there is one.
            public var description: String {
                var text = name + (address.map { " (\($0))" } ?? "") + ": \(status)"
                if let midpoint, let radius {
                    text += " \(ISO8601.format(midpoint, fractionDigits: 0)) ± \(radius.formattedSeconds)"
                }
                if let reason { text += " (\(reason))" }
                return text
            }
        }

        /// Every configured server, in the order they were asked.
        public package(set) var servers: [Server]
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

        /// The part of a finished query.
        package init(_ result: RoughtimeQueryResult) {
            servers = result.servers.map { report in
                Server(
                    name: report.name, address: report.address, status: report.status.code,
                    reason: report.status.error?.description, version: report.version?.description,
                    midpoint: report.midpoint, radius: report.radius, roundTrip: report.roundTrip)
            }
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
        }

        /// `roughtime: agreed … (k liars)` or `roughtime: no agreement: …`.
        public var description: String {
            var text: String
            if let agreedOffsets {
                let middle =
                    agreedOffsets.lowerBound + (agreedOffsets.upperBound - agreedOffsets.lowerBound) / 2
                let radius = (agreedOffsets.upperBound - agreedOffsets.lowerBound) / 2
                text = "roughtime: offset \(middle.signedFormattedSeconds) ± \(radius.formattedSeconds)"
                text +=
                    " (\(servers.filter { $0.status == "agreed" }.count) of \(servers.count) servers agree)"
            } else {
                text = "roughtime: no agreed time: \(error ?? "no reply")"
            }
            if !liars.isEmpty { text += "; liars: " + liars.joined(separator: ", ") }
            return text
        }
    }
}
