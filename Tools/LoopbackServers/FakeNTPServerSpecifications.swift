// The text forms of durations, delay distributions and behaviours, shared by the command line
// (`--offset 1.5`, `--out-delay uniform:5ms:50ms`, `--behaviour kiss:RATE`) and by `description`.

extension FakeNTPServer {
    /// Parses a decimal duration with an optional unit (`ns`, `us`, `ms`, `s`; seconds when absent),
    /// e.g. `1.5`, `-2`, `250ms`, `0.5us`. Exact: no floating point. Nil when malformed.
    package static func parseDuration(_ text: String) -> Duration? {
        var body = Substring(text)
        var exponent = 18  // attoseconds per unit = 10^exponent
        for (suffix, unitExponent) in [("ns", 9), ("us", 12), ("µs", 12), ("ms", 15), ("s", 18)]
        where body.hasSuffix(suffix) {
            body = body.dropLast(suffix.count)
            exponent = unitExponent
            break
        }
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        let pieces = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = pieces[0]
        let fraction = pieces.count > 1 ? pieces[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 18,
            whole.allSatisfy(\.isASCII), fraction.allSatisfy(\.isASCII),
            whole.allSatisfy(\.isNumber), fraction.allSatisfy(\.isNumber)
        else { return nil }
        let wholeValue = whole.isEmpty ? 0 : Int64(whole) ?? -1
        // The fraction in attoseconds: its first `exponent` digits, padded with zeros.
        let digits = String(fraction.prefix(exponent)).padding(toLength: exponent, with: "0")
        guard wholeValue >= 0, let fractionValue = digits.isEmpty ? 0 : Int64(digits) else { return nil }
        let unit: Duration =
            exponent == 18
            ? .seconds(1) : Duration(secondsComponent: 0, attosecondsComponent: power(exponent))
        let value = unit * wholeValue + Duration(secondsComponent: 0, attosecondsComponent: fractionValue)
        return negative ? .zero - value : value
    }

    /// A duration in the form ``parseDuration(_:)`` reads, in the largest unit that keeps it exact
    /// to the nanosecond: `20s`, `1500ms`, `40us`, `7ns`.
    package static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        for (unit, size) in [("s", Int64(1_000_000_000)), ("ms", 1_000_000), ("us", 1000)]
        where nanoseconds % size == 0 {
            return "\(nanoseconds / size)\(unit)"
        }
        return "\(nanoseconds)ns"
    }

    private static func power(_ exponent: Int) -> Int64 {
        var value: Int64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}

extension String {
    fileprivate func padding(toLength length: Int, with pad: Character) -> String {
        count >= length ? self : self + String(repeating: pad, count: length - count)
    }
}

extension FakeNTPServer.DelayDistribution: CustomStringConvertible {
    /// Parses a delay specification: `none`, a duration (`5ms`, constant), `uniform:LOW:HIGH`,
    /// `exp:MEAN`, or `spikes:PROBABILITY:LOW:HIGH:BASE` where BASE is itself a specification.
    package init(spec: String) throws(FakeNTPServer.UsageError) {
        let parts = spec.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false).map(
            String.init)
        func duration(_ text: String) throws(FakeNTPServer.UsageError) -> Duration {
            guard let value = FakeNTPServer.parseDuration(text), value >= .zero else {
                throw FakeNTPServer.UsageError("not a non-negative duration: \(text) in \(spec)")
            }
            return value
        }
        switch parts[0] {
        case "none" where parts.count == 1:
            self = .none
        case "uniform" where parts.count == 3:
            self = .uniform(try duration(parts[1]), try duration(parts[2]))
        case "exp" where parts.count == 2:
            self = .exponential(mean: try duration(parts[1]))
        case "spikes" where parts.count == 5:
            guard let probability = Double(parts[1]), (0...1).contains(probability) else {
                throw FakeNTPServer.UsageError("not a probability (0-1): \(parts[1]) in \(spec)")
            }
            let low = try duration(parts[2])
            let high = try duration(parts[3])
            guard low <= high else { throw FakeNTPServer.UsageError("spike range is empty in \(spec)") }
            self = .spikes(base: try Self(spec: parts[4]), probability: probability, range: low...high)
        default:
            guard parts.count == 1 else {
                throw FakeNTPServer.UsageError(
                    "not a delay (none, 5ms, uniform:LOW:HIGH, exp:MEAN, spikes:P:LOW:HIGH:BASE): \(spec)")
            }
            let value = try duration(parts[0])
            self = value == .zero ? .none : .constant(value)
        }
    }

    /// The specification ``init(spec:)`` reads.
    package var description: String {
        switch self {
        case .none: return "none"
        case .constant(let delay): return FakeNTPServer.format(delay)
        case .uniform(let low, let high):
            return "uniform:\(FakeNTPServer.format(low)):\(FakeNTPServer.format(high))"
        case .exponential(let mean): return "exp:\(FakeNTPServer.format(mean))"
        case .spikes(let base, let probability, let range):
            return "spikes:\(probability):\(FakeNTPServer.format(range.lowerBound)):"
                + "\(FakeNTPServer.format(range.upperBound)):\(base)"
        }
    }
}

extension FakeNTPServer.Behaviour {
    /// Parses a behaviour in the form its ``description`` prints, e.g. `truncated:20`, `kiss:RATE`,
    /// `late:3s`, `bad-first:wrong-origin`.
    package init(spec: String) throws(FakeNTPServer.UsageError) {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(
            String.init)
        let name = parts[0]
        let argument = parts.count > 1 ? parts[1] : nil
        func required() throws(FakeNTPServer.UsageError) -> String {
            guard let argument, !argument.isEmpty else {
                throw FakeNTPServer.UsageError("behaviour \(name) needs an argument: \(name):ARG")
            }
            return argument
        }
        func integer<T: FixedWidthInteger>(_ type: T.Type) throws(FakeNTPServer.UsageError) -> T {
            let text = try required()
            guard let value = T(text) else {
                throw FakeNTPServer.UsageError("not an integer in range: \(text) in \(spec)")
            }
            return value
        }
        func duration(_ text: String) throws(FakeNTPServer.UsageError) -> Duration {
            guard let value = FakeNTPServer.parseDuration(text), value >= .zero else {
                throw FakeNTPServer.UsageError("not a non-negative duration: \(text) in \(spec)")
            }
            return value
        }
        let simple: [String: Self] = [
            "normal": .normal, "wrong-origin": .wrongOrigin, "zero-origin": .zeroOrigin,
            "stale-origin": .staleOrigin, "unsynchronized": .unsynchronized, "zero-transmit": .zeroTransmit,
            "zero-receive": .zeroReceive, "receive-after-transmit": .receiveAfterTransmit,
            "negative-delay": .negativeDelay, "no-reply": .noReply, "duplicate": .duplicateReply,
            "other-port": .fromOtherPort, "stale-first": .staleReplyFirst,
        ]
        if let behaviour = simple[name] {
            guard argument == nil else {
                throw FakeNTPServer.UsageError("behaviour \(name) takes no argument")
            }
            self = behaviour
            return
        }
        switch name {
        case "truncated": self = .truncated(length: try integer(Int.self))
        case "wrong-mode": self = .wrongMode(try integer(UInt8.self))
        case "wrong-version": self = .wrongVersion(try integer(UInt8.self))
        case "kiss":
            let code = try required()
            guard code.utf8.count <= 4, code.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw FakeNTPServer.UsageError("a kiss code is 1-4 ASCII characters: \(code)")
            }
            self = .kissOfDeath(code: code)
        case "stratum": self = .stratum(try integer(UInt8.self))
        case "root-distance":
            let values = try required().split(separator: ":", omittingEmptySubsequences: false).map(
                String.init)
            guard values.count == 2 else {
                throw FakeNTPServer.UsageError(
                    "root-distance needs DELAY:DISPERSION, e.g. root-distance:20s:0s")
            }
            self = .rootDistance(delay: try duration(values[0]), dispersion: try duration(values[1]))
        case "garbage": self = .garbage(length: try integer(Int.self))
        case "late": self = .lateReply(try duration(try required()))
        case "answer-every":
            let every = try integer(Int.self)
            guard every > 0 else { throw FakeNTPServer.UsageError("answer-every needs a positive count") }
            self = .answerOnly(every: every)
        case "stepped":
            let text = try required()
            guard let step = FakeNTPServer.parseDuration(text) else {
                throw FakeNTPServer.UsageError("not a duration: \(text) in \(spec)")
            }
            self = .steppedClock(by: step)
        case "bad-first": self = .badReplyFirst(try Self(spec: try required()))
        default:
            throw FakeNTPServer.UsageError("unknown behaviour: \(name) (see --help)")
        }
    }
}
