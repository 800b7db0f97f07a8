import SNTP
import TimeValues

extension FakeNTPServer {
    /// Everything a fake server does: where it listens, how wrong its clock is, how slow its paths
    /// are, what it says about itself, and how it misbehaves.
    ///
    /// `host` and `port` are read once, when the server starts; every other field can be changed while
    /// it runs with ``FakeNTPServer/update(_:)`` and applies from the next request on.
    package struct Configuration: Hashable, Sendable {
        /// The numeric loopback address to bind: `127.0.0.1` (default), `::1`, or any `127.x.y.z`.
        package var host: String
        /// The UDP port to bind; 0 (default) picks a free ephemeral port.
        package var port: UInt16

        /// The server's clock minus this machine's `CLOCK_REALTIME`: the offset a correct client should
        /// measure. Any size; from about +9.2 years on, the server's timestamps are in NTP era 1.
        package var offset: Duration
        /// How fast the server's clock gains on this machine's, in parts per million, counted from
        /// the moment the server started: each stamp is the machine's clock + ``offset`` + the time
        /// since the start × `frequencyPPM`. 60 makes a server whose clock gains 60 ppm on ours
        /// (a correct client's measured offset grows by 60 µs per second). Default 0.
        package var frequencyPPM: Double

        /// Delay after a request arrives and before T2 is stamped: the client→server path.
        package var outboundDelay: DelayDistribution
        /// Delay between stamping T2 and stamping T3: the server's processing time.
        package var processingDelay: DelayDistribution
        /// Delay after stamping T3 and before the reply is sent: the server→client path.
        package var returnDelay: DelayDistribution
        /// The seed of the generator behind the delays, garbage bytes and wrong origins. Changing it
        /// restarts the sequence.
        package var seed: UInt64

        /// The leap indicator of correct replies.
        package var leap: NTPPacket.LeapIndicator
        /// With ``leap`` 1 or 2, the UTC midnight (of the server's clock) at which the server applies
        /// the leap as a kernel applying `STA_INS`/`STA_DEL` does: at midnight its clock steps back
        /// 1 s (23:59:59 repeats), or at 23:59:59 forward 1 s (it is skipped); the leap indicator is
        /// 0 from then on. nil: the indicator is only announced.
        package var leapMidnight: UnixTime?
        /// With ``leap`` 1 or 2 and ``leapMidnight``: smear the leap instead of stepping, as the big
        /// public smearing servers do (linearly over 24 h from noon to noon UTC, 86,400 ± 1 SI
        /// seconds counting as 86,400), announcing nothing (LI 0 throughout, as they do).
        package var smear: Bool
        /// The stratum of correct replies.
        package var stratum: NTPPacket.Stratum
        /// The reference ID; nil picks one that suits the stratum: `LOCL` for stratum 0 and 1,
        /// `127.127.1.1` (the classic local-clock driver address) for stratum 2 and above.
        package var referenceID: NTPPacket.ReferenceID?
        /// The precision the server claims for its clock.
        package var precision: NTPPacket.Log2Seconds
        /// The root delay the server claims (rounded up to 2⁻¹⁶ s).
        package var rootDelay: Duration
        /// The root dispersion the server claims (rounded up to 2⁻¹⁶ s).
        package var rootDispersion: Duration
        /// The poll field of replies; nil echoes the request's.
        package var poll: NTPPacket.Log2Seconds?
        /// The version field of replies; nil echoes the request's (or 4 when that is outside 1–4).
        package var version: UInt8?
        /// How long before T3 the server's clock was last set: the reference timestamp is
        /// T3 − `referenceAge`.
        package var referenceAge: Duration

        /// How to answer requests when ``nextBehaviours`` is empty.
        package var behaviour: Behaviour
        /// Behaviours for the next requests, one each, in order: the server removes the first element
        /// as each request arrives, and falls back to ``behaviour`` once the list is empty. For
        /// example `[.noReply, .noReply]` drops the next two requests.
        package var nextBehaviours: [Behaviour]

        /// Creates a configuration of a correct stratum-2 server on `host`, `port`, whose clock is
        /// `offset` ahead of this machine's, with no added delays.
        package init(host: String = "127.0.0.1", port: UInt16 = 0, offset: Duration = .zero) {
            self.host = host
            self.port = port
            self.offset = offset
            self.frequencyPPM = 0
            self.outboundDelay = .none
            self.processingDelay = .none
            self.returnDelay = .none
            self.seed = 0x5EED_0F_F4CE
            self.leap = .noWarning
            self.leapMidnight = nil
            self.smear = false
            self.stratum = NTPPacket.Stratum(rawValue: 2)
            self.referenceID = nil
            self.precision = NTPPacket.Log2Seconds(rawValue: -20)
            self.rootDelay = .zero
            self.rootDispersion = .microseconds(100)
            self.poll = nil
            self.version = nil
            self.referenceAge = .seconds(16)
            self.behaviour = .normal
            self.nextBehaviours = []
        }

        /// The reference ID replies carry: ``referenceID``, or the default for ``stratum``.
        package var effectiveReferenceID: NTPPacket.ReferenceID {
            if let referenceID { return referenceID }
            return stratum.rawValue <= 1
                ? NTPPacket.ReferenceID(ascii: "LOCL") : NTPPacket.ReferenceID(rawValue: 0x7F7F_0101)
        }

        /// `time` (the server's clock as if no leap happened) after the leap at ``leapMidnight``,
        /// and the leap indicator to send with it.
        package func applyingLeap(to time: UnixTime) -> (time: UnixTime, leap: NTPPacket.LeapIndicator) {
            guard let midnight = leapMidnight else { return (time, leap) }
            if smear, leap == .insertSecond || leap == .deleteSecond {
                return (
                    Self.smeared(time, midnight: midnight, sign: leap == .insertSecond ? 1 : -1), .noWarning
                )
            }
            switch leap {
            case .insertSecond where time >= midnight: return (time - .seconds(1), .noWarning)
            case .deleteSecond where time >= midnight - .seconds(1): return (time + .seconds(1), .noWarning)
            default: return (time, leap)
            }
        }

        /// Linear time `time` smeared over the 24 h around `midnight` for a leap of `sign`: from noon
        /// before to noon after, time runs 86,400 / (86,400 + sign) as fast.
        package static func smeared(_ time: UnixTime, midnight: UnixTime, sign: Int64) -> UnixTime {
            let start = midnight - .seconds(43_200)
            let width = Duration.seconds(86_400 + sign)
            let elapsed = Swift.min(Swift.max(time - start, .zero), width)
            // Exact: the elapsed time in attoseconds scaled by sign / (86,400 + sign).
            let moved = elapsed.attoseconds * Int128(sign) / Int128(86_400 + sign)
            return time - Duration(attoseconds: moved)
        }
    }
}

extension FakeNTPServer {
    /// The first instant of the UTC month after the one containing `time`: where leap seconds go.
    package static func monthEnd(after time: UnixTime) -> UnixTime {
        let date = CivilDate.of(time)
        let (year, month) = date.month == 12 ? (date.year + 1, 1) : (date.year, date.month + 1)
        return UnixTime(seconds: CivilDate.days(year: year, month: month, day: 1) * 86_400)
    }
}
