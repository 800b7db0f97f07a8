extension NTPPacket {
    /// A Kiss-o'-Death code (RFC 5905 §7.4): the reference ID of a stratum-0 reply, telling the client
    /// to slow down or go away.
    public struct KissCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's four ASCII characters (or hex when not printable).
        public var rawValue: String

        /// Creates a kiss code from its text.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Reads the kiss code carried in a reference ID.
        public init(_ referenceID: ReferenceID) {
            self.rawValue = referenceID.asciiCode ?? referenceID.hex
        }

        /// `RATE`: the client is sending too fast; reduce the rate (back off).
        public static let rate = KissCode(rawValue: "RATE")
        /// `DENY`: access denied; stop sending to this server.
        public static let deny = KissCode(rawValue: "DENY")
        /// `RSTR`: access restricted by policy; stop sending to this server.
        public static let restricted = KissCode(rawValue: "RSTR")
        /// `NTSN`: an NTS negative acknowledgement (RFC 8915 §5.7); the server could not use the
        /// request's cookie, so the client must run a new NTS key exchange.
        public static let ntsNegativeAcknowledgement = KissCode(rawValue: "NTSN")

        /// Whether the code tells the client never to query this server again (DENY or RSTR).
        public var isTerminal: Bool { self == .deny || self == .restricted }

        /// The code's text.
        public var description: String { rawValue }
    }
}
