/// The 48-byte NTP header (RFC 5905 §7.3), shared by requests and replies.
///
/// Decoding is total: any 48 or more bytes decode to a packet (extension fields and MACs after the
/// header are ignored), and encoding a decoded packet reproduces the same 48 bytes. Whether a packet
/// is an acceptable reply is a separate question, which ``SNTPClient`` answers for every reply.
public struct NTPPacket: Hashable, Sendable {
    /// Size of the NTP header in bytes.
    public static let headerSize = 48

    /// Leap indicator (2 bits).
    public var leap: LeapIndicator
    /// Protocol version (3 bits; 4 for NTPv4).
    public var version: UInt8
    /// Association mode (3 bits).
    public var mode: Mode
    /// Stratum.
    public var stratum: Stratum
    /// Maximum interval between successive messages, log2 seconds.
    public var poll: Log2Seconds
    /// Precision of the sender's clock, log2 seconds.
    public var precision: Log2Seconds
    /// Total round-trip delay to the reference clock.
    public var rootDelay: ShortFormat
    /// Total dispersion (error) relative to the reference clock.
    public var rootDispersion: ShortFormat
    /// Reference ID or kiss code.
    public var referenceID: ReferenceID
    /// When the sender's clock was last set.
    public var referenceTimestamp: NTPTimestamp
    /// T1 as echoed by the server: the transmit timestamp of the request this reply answers.
    public var originTimestamp: NTPTimestamp
    /// T2: when the server received the request.
    public var receiveTimestamp: NTPTimestamp
    /// T3: when the server sent the reply (in a request: the client's nonce).
    public var transmitTimestamp: NTPTimestamp

    /// Creates a packet; every field defaults to zero except version 4.
    public init(
        leap: LeapIndicator = .noWarning, version: UInt8 = 4, mode: Mode = .client,
        stratum: Stratum = .kissOfDeath, poll: Log2Seconds = Log2Seconds(rawValue: 0),
        precision: Log2Seconds = Log2Seconds(rawValue: 0), rootDelay: ShortFormat = .zero,
        rootDispersion: ShortFormat = .zero, referenceID: ReferenceID = ReferenceID(rawValue: 0),
        referenceTimestamp: NTPTimestamp = .zero, originTimestamp: NTPTimestamp = .zero,
        receiveTimestamp: NTPTimestamp = .zero, transmitTimestamp: NTPTimestamp = .zero
    ) {
        self.leap = leap
        self.version = version & 0b111
        self.mode = mode
        self.stratum = stratum
        self.poll = poll
        self.precision = precision
        self.rootDelay = rootDelay
        self.rootDispersion = rootDispersion
        self.referenceID = referenceID
        self.referenceTimestamp = referenceTimestamp
        self.originTimestamp = originTimestamp
        self.receiveTimestamp = receiveTimestamp
        self.transmitTimestamp = transmitTimestamp
    }

    /// A client request as NetworkClock sends it: version 4, mode 3, every field zero except the
    /// transmit timestamp, which carries `nonce` instead of the local time (RFC 9109-style data
    /// minimisation: the server learns nothing about our clock, and a reply must echo the nonce).
    public static func clientRequest(nonce: NTPTimestamp) -> NTPPacket {
        NTPPacket(mode: .client, transmitTimestamp: nonce)
    }

    /// Decodes the header from the first 48 bytes of `bytes`.
    /// - Throws: ``SNTPError`` with code ``SNTPError/Code/malformedPacket`` when fewer than 48
    ///   bytes are given.
    public init(decoding bytes: some Collection<UInt8>) throws(SNTPError) {
        guard bytes.count >= Self.headerSize else {
            throw SNTPError(
                code: .malformedPacket,
                reason: "packet too short: \(bytes.count) bytes, an NTP header needs \(Self.headerSize)")
        }
        var reader = BigEndianReader(Array(bytes.prefix(Self.headerSize)))
        let first = reader.readUInt8()
        self.leap = LeapIndicator(rawValue: first >> 6)
        self.version = (first >> 3) & 0b111
        self.mode = Mode(rawValue: first)
        self.stratum = Stratum(rawValue: reader.readUInt8())
        self.poll = Log2Seconds(rawValue: Int8(bitPattern: reader.readUInt8()))
        self.precision = Log2Seconds(rawValue: Int8(bitPattern: reader.readUInt8()))
        self.rootDelay = ShortFormat(rawValue: reader.readUInt32())
        self.rootDispersion = ShortFormat(rawValue: reader.readUInt32())
        self.referenceID = ReferenceID(rawValue: reader.readUInt32())
        self.referenceTimestamp = NTPTimestamp(rawValue: reader.readUInt64())
        self.originTimestamp = NTPTimestamp(rawValue: reader.readUInt64())
        self.receiveTimestamp = NTPTimestamp(rawValue: reader.readUInt64())
        self.transmitTimestamp = NTPTimestamp(rawValue: reader.readUInt64())
    }

    /// The 48 header bytes in wire order.
    public func encoded() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.headerSize)
        bytes.withUnsafeMutableBytes { encode(into: $0) }
        return bytes
    }

    /// Writes the 48 header bytes in wire order to the start of `buffer`, which must hold at least
    /// ``headerSize`` bytes: the header of a longer packet written in place (NTS), no array of its own.
    package func encode(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= Self.headerSize, "an NTP header needs \(Self.headerSize) bytes")
        buffer[0] = leap.rawValue << 6 | (version & 0b111) << 3 | mode.rawValue
        buffer[1] = stratum.rawValue
        buffer[2] = UInt8(bitPattern: poll.rawValue)
        buffer[3] = UInt8(bitPattern: precision.rawValue)
        buffer.storeBytes(of: rootDelay.rawValue.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: rootDispersion.rawValue.bigEndian, toByteOffset: 8, as: UInt32.self)
        buffer.storeBytes(of: referenceID.rawValue.bigEndian, toByteOffset: 12, as: UInt32.self)
        buffer.storeBytes(of: referenceTimestamp.rawValue.bigEndian, toByteOffset: 16, as: UInt64.self)
        buffer.storeBytes(of: originTimestamp.rawValue.bigEndian, toByteOffset: 24, as: UInt64.self)
        buffer.storeBytes(of: receiveTimestamp.rawValue.bigEndian, toByteOffset: 32, as: UInt64.self)
        buffer.storeBytes(of: transmitTimestamp.rawValue.bigEndian, toByteOffset: 40, as: UInt64.self)
    }

    /// The kiss code when this is a Kiss-o'-Death reply (stratum 0), otherwise nil.
    public var kissCode: KissCode? {
        stratum.isKissOfDeath ? KissCode(referenceID) : nil
    }

    /// The root distance: root delay / 2 + root dispersion, the server's own bound on its error.
    public var rootDistance: Duration {
        rootDelay.duration / 2 + rootDispersion.duration
    }
}

/// Reads big-endian integers from a byte array whose length the caller has already checked.
struct BigEndianReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func readUInt8() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func readUInt32() -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(readUInt8()) }
        return value
    }

    mutating func readUInt64() -> UInt64 {
        UInt64(readUInt32()) << 32 | UInt64(readUInt32())
    }
}
