// libFuzzer target: NTP packet decoding, reply validation, sample arithmetic and selection.
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform and SNTP
// compiled for fuzzing; it uses their `package` API. Not part of the Swift package.
//
// Input layout: bytes 0..<48 are the NTP header as received; the bytes after it (read as zeros
// when missing) steer the harness:
//   control   1 byte   bit 0: 0 = the origin matches the request in flight (.current);
//                             1 = it does not (bits 1–2 pick .none, .stale or .alreadyAnswered)
//                      bit 3: T1/T4 from raw 64-bit values instead of a realistic local clock
//                      bits 4–6: number of extra intervals for the intersection (0–7)
//   local     8 bytes  local receive time (realistic mode) or T4 (raw mode)
//   rtt       8 bytes  round trip, signed nanoseconds (realistic) or T1 (raw mode)
//   misc      8 bytes  monotonic receive instant, local precision, offset ceiling
//   intervals 16 bytes each: offset and bound, signed nanoseconds
//
// Every invariant broken calls `fatalError` with a message, which libFuzzer reports as a crash.

import NetClockPlatform
import SNTP
import TimeValues

/// Reads fixed-size values from the steering bytes, yielding zeros past the end.
private struct Steering {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = Array(bytes)
    }

    mutating func byte() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }

    mutating func int32() -> Int32 {
        var value: UInt32 = 0
        for _ in 0..<4 { value = value << 8 | UInt32(byte()) }
        return Int32(bitPattern: value)
    }
}

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzNTPPacket invariant violated: \(message())")
    }
}

private func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// The big-endian 64-bit value at `offset` in `bytes` (which has at least `offset + 8` bytes).
private func wireUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
    bytes[offset..<(offset + 8)].reduce(0) { $0 << 8 | UInt64($1) }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNTPPacket(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkDecoding(bytes)
    var steering = Steering(bytes.dropFirst(NTPPacket.headerSize))
    let control = steering.byte()
    let match = requestMatch(control)
    let policies = [
        ValidationPolicy(),
        ValidationPolicy(maximumRootDistance: .nanoseconds(1)),
    ]
    var accepted: NTPPacket?
    for policy in policies {
        if let packet = checkValidation(bytes, match: match, policy: policy) {
            accepted = packet
        }
    }
    if let packet = accepted {
        checkSample(packet, control: control, steering: &steering)
    }
    return 0
}

/// Decoding is total for ≥ 48 bytes, rejects shorter input, and round-trips the header exactly.
private func checkDecoding(_ bytes: [UInt8]) {
    let packet: NTPPacket
    do {
        packet = try NTPPacket(decoding: bytes)
    } catch {
        require(bytes.count < NTPPacket.headerSize, "\(bytes.count) bytes did not decode: \(error)")
        require(error.code == .malformedPacket, "wrong error \(error.code) for \(bytes.count) bytes")
        require(
            error.reason.contains("\(bytes.count) bytes"), "the reason '\(error.reason)' misses the length")
        return
    }
    require(bytes.count >= NTPPacket.headerSize, "\(bytes.count) bytes decoded")
    let header = Array(bytes.prefix(NTPPacket.headerSize))
    let encoded = packet.encoded()
    require(encoded == header, "re-encoding changed the header: \(hex(header)) -> \(hex(encoded))")
    // Decoding from another collection type (a slice, not an array) gives the same packet.
    let again = try? NTPPacket(decoding: bytes[...])
    require(again == packet, "decoding a slice gave a different packet")
    require(packet.originTimestamp.rawValue == wireUInt64(bytes, at: 24), "origin misread")
    require(packet.receiveTimestamp.rawValue == wireUInt64(bytes, at: 32), "receive misread")
    require(packet.transmitTimestamp.rawValue == wireUInt64(bytes, at: 40), "transmit misread")
    // Everything derived from the header for display and logging must be total too.
    _ = packet.kissCode?.isTerminal
    _ = packet.rootDistance
    _ = packet.precision.duration
    _ = packet.poll.duration
    _ = packet.leap.name
    _ = packet.referenceID.display(stratum: packet.stratum)
    _ = packet.referenceID.hex
    for stamp in [
        packet.referenceTimestamp, packet.originTimestamp, packet.receiveTimestamp,
        packet.transmitTimestamp,
    ] {
        _ = stamp.description
        let unix = stamp.unixTime
        _ = unix.description
        require(NTPTimestamp(unix) == stamp, "\(stamp) -> \(unix) does not convert back")
        _ = stamp.unixTime(near: UnixTime(seconds: 1_796_004_667))
    }
}

/// The origin match the control byte asks for: `.current` for half the inputs.
private func requestMatch(_ control: UInt8) -> ReplyValidator.RequestMatch {
    guard control & 1 == 1 else { return .current }
    switch (control >> 1) & 0b11 {
    case 0: return .stale
    case 1: return .alreadyAnswered
    default: return .none
    }
}

/// Runs the validator and checks that an accepted packet meets every documented condition and that
/// a rejection has the right reason. Returns the packet when accepted.
private func checkValidation(
    _ bytes: [UInt8], match: ReplyValidator.RequestMatch, policy: ValidationPolicy
) -> NTPPacket? {
    var expectedOrigin: NTPTimestamp?
    if bytes.count >= NTPPacket.headerSize {
        expectedOrigin = NTPTimestamp(rawValue: wireUInt64(bytes, at: 24))
    }
    var matchCalls = 0
    let packet: NTPPacket
    do {
        packet = try ReplyValidator.validate(
            bytes,
            match: { origin in
                matchCalls += 1
                require(origin == expectedOrigin, "match closure got \(origin), not the wire origin")
                return match
            }, policy: policy)
    } catch {
        _ = error.description
        _ = error.code
        _ = error.isFromServer
        if bytes.count < NTPPacket.headerSize {
            require(error == .tooShort(length: bytes.count), "short input rejected as \(error.code)")
            return nil
        }
        switch match {
        case .current: require(error.isFromServer, "matched reply rejected as \(error.code)")
        case .stale: require(error == .staleReply, "stale reply rejected as \(error.code)")
        case .alreadyAnswered: require(error == .duplicateReply, "duplicate rejected as \(error.code)")
        case .none: require(error == .originMismatch, "spoofed reply rejected as \(error.code)")
        }
        return nil
    }
    require(matchCalls == 1, "match closure called \(matchCalls) times")
    require(match == .current, "accepted a reply whose origin matched as \(match)")
    require(packet.encoded() == Array(bytes.prefix(NTPPacket.headerSize)), "validator changed the packet")
    require(packet.mode == .server, "accepted mode \(packet.mode.rawValue)")
    require((1...4).contains(packet.version), "accepted version \(packet.version)")
    require((1...15).contains(packet.stratum.rawValue), "accepted stratum \(packet.stratum.rawValue)")
    require(packet.leap != .alarm, "accepted leap alarm")
    require(!packet.receiveTimestamp.isZero && !packet.transmitTimestamp.isZero, "accepted zero T2/T3")
    require(packet.transmitTimestamp - packet.receiveTimestamp >= .zero, "accepted T2 after T3")
    require(packet.rootDistance <= policy.maximumRootDistance, "accepted root distance over the limit")
    return packet
}

/// Builds a sample from an accepted reply with T1/T4 from the steering bytes, validates it, and runs
/// the error bound and the intersection over it and a few intervals from the bytes.
private func checkSample(_ packet: NTPPacket, control: UInt8, steering: inout Steering) {
    let server = SocketAddress(ipv4: (192, 0, 2, 1), port: 123)
    let t1: NTPTimestamp
    let t4: NTPTimestamp
    let localReceiveTime: UnixTime
    if control & 0b1000 != 0 {
        // Raw: any T1 and T4 at all, as a hostile or broken peer and a broken local clock allow.
        t4 = NTPTimestamp(rawValue: steering.uint64())
        t1 = NTPTimestamp(rawValue: steering.uint64())
        localReceiveTime = t4.unixTime
    } else {
        // Realistic: a local clock anywhere in ±272 years of 1970 (a broken RTC included), and a
        // round trip of any sign up to ±292 years, encoded as the client encodes them.
        let seconds = Int64(steering.int32()) * 4
        let nanoseconds = Int64(steering.int32() & 0x3FFF_FFFF)
        localReceiveTime = UnixTime(seconds: seconds, nanoseconds: nanoseconds)
        let roundTrip = Duration.nanoseconds(steering.int64())
        t4 = NTPTimestamp(localReceiveTime)
        t1 = NTPTimestamp(localReceiveTime - roundTrip)
        let back = t4.unixTime(near: localReceiveTime)
        require(
            abs(back - localReceiveTime) <= .nanoseconds(1), "T4 \(t4) does not map back to the local time")
    }
    let receivedAt = MonotonicInstant(sinceOrigin: .nanoseconds(steering.int32()) * 1_000)
    let localPrecision = Duration.nanoseconds(Int64(1) << Int64(steering.byte() % 40))
    let ceilingByte = steering.byte()
    let sample = NTPSample(
        server: server, t1: t1, reply: packet, t4: t4, receivedAt: receivedAt,
        localReceiveTime: localReceiveTime, localPrecision: localPrecision)
    require(
        sample.t2 == packet.receiveTimestamp && sample.t3 == packet.transmitTimestamp, "T2/T3 copied wrong")
    // The offset and delay are exact: θ·2 = (T2 − T1) + (T3 − T4), δ = (T4 − T1) − (T3 − T2).
    let twiceOffset = (packet.receiveTimestamp - t1) + (packet.transmitTimestamp - t4)
    require(
        abs(sample.offset * 2 - twiceOffset) <= Duration(secondsComponent: 0, attosecondsComponent: 1),
        "offset \(sample.offset) is not half of \(twiceOffset)")
    _ = sample.trueTime
    _ = sample.offset.formattedSeconds
    _ = sample.delay.formattedSeconds

    let ceilings: [Duration?] = [nil, .seconds(Int64(ceilingByte)), .zero]
    var acceptedBySomePolicy = false
    for ceiling in ceilings {
        let policy = ValidationPolicy(maximumOffset: ceiling)
        do {
            try ReplyValidator.validate(sample, policy: policy)
            acceptedBySomePolicy = true
            require(sample.delay >= .zero, "accepted negative delay \(sample.delay)")
            if let ceiling {
                require(abs(sample.offset) <= ceiling, "accepted offset \(sample.offset) over \(ceiling)")
            }
        } catch {
            _ = error.description
            switch error {
            case .negativeDelay(let delay):
                require(delay < .zero && delay == sample.delay, "negativeDelay(\(delay)) for \(sample.delay)")
            case .offsetTooLarge(let offset, let limit):
                require(sample.delay >= .zero, "negative delay reported as an offset problem")
                require(ceiling == limit && abs(offset) > limit, "offsetTooLarge(\(offset), \(limit))")
            default:
                require(false, "sample rejected as \(error.code)")
            }
        }
    }

    let bound = sample.errorBound
    _ = bound.formattedSeconds
    if sample.delay >= .zero {
        require(
            bound >= sample.delay / 2 + packet.rootDistance, "error bound \(bound) below δ/2 + root distance")
    }
    guard acceptedBySomePolicy else { return }

    // Offsets from one wall-clock reading, as times at one instant.
    let wall = UnixTime(seconds: 1_800_000_000)
    let instant = MonotonicInstant(sinceOrigin: .seconds(1_000))
    var intervals = [TrueTimeInterval(time: wall + sample.offset, bound: bound, instant: instant)]
    let extra = Int((control >> 4) & 0b111)
    for _ in 0..<extra {
        let offset = Duration.nanoseconds(steering.int64())
        let width = Duration.nanoseconds(steering.int64())
        intervals.append(TrueTimeInterval(time: wall + offset, bound: width, instant: instant))
    }
    checkIntersection(intervals)
}

/// The intersection either finds an agreement that a strict majority of the intervals meets and
/// splits the indices into truechimers and falsetickers, or reports no majority.
private func checkIntersection(_ intervals: [TrueTimeInterval]) {
    let result: Intersection.Result
    do {
        result = try Intersection.select(intervals)
    } catch {
        _ = error.description
        switch error {
        case .noSources:
            require(intervals.isEmpty, "noSources for \(intervals.count) intervals")
        case .noMajority(let sources, let largest):
            require(sources == intervals.count, "noMajority counts \(sources) of \(intervals.count)")
            require(intervals.count >= 2, "no majority among \(intervals.count) interval")
            require(largest * 2 <= sources, "no majority, yet \(largest) of \(sources) agree")
        }
        return
    }
    let n = intervals.count
    let agreement = result.agreement
    require(agreement.earliest <= agreement.latest, "agreement \(agreement) is empty")
    let all = (result.truechimers + result.falsetickers).sorted()
    require(all == Array(0..<n), "indices \(result.truechimers) + \(result.falsetickers) for \(n) intervals")
    require(result.truechimers.count * 2 > n, "\(result.truechimers.count) truechimers of \(n)")
    for index in result.truechimers {
        require(intervals[index].overlaps(agreement), "truechimer \(index) misses the agreement")
    }
    for index in result.falsetickers {
        require(!intervals[index].overlaps(agreement), "falseticker \(index) meets the agreement")
    }
    // Some point of the agreement lies in at least n − f intervals: its midpoint, for instance, is
    // covered by every truechimer only when they all contain it, so check the ends instead.
    let coverage = { (point: UnixTime) in
        intervals.filter { $0.earliest <= point && point <= $0.latest }.count
    }
    let best = max(coverage(agreement.earliest), coverage(agreement.latest))
    require(best * 2 > n, "the agreement ends are covered by only \(best) of \(n) intervals")
}
