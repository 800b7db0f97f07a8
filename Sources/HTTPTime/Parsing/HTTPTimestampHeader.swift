import NetClockPlatform
import TimeValues

/// A response header that carries the server's clock as a number since the Unix epoch, such as
/// `X-Server-Time-Ms: 1732932805123`: finer than the 1-second `Date` header.
package struct HTTPTimestampHeader: Hashable, Sendable {
    /// The unit of the number in the header.
    package enum Unit: String, Hashable, Sendable, CaseIterable {
        /// Whole seconds with an optional decimal fraction, e.g. `1732932805.123`; the resolution is
        /// one unit of the last digit written.
        case seconds
        /// Whole milliseconds, e.g. `1732932805123`.
        case milliseconds
        /// Whole microseconds.
        case microseconds
        /// Whole nanoseconds.
        case nanoseconds

        /// The duration of one unit of the integer forms (one second for ``seconds``).
        package var step: Duration {
            switch self {
            case .seconds: return .seconds(1)
            case .milliseconds: return .milliseconds(1)
            case .microseconds: return .microseconds(1)
            case .nanoseconds: return .nanoseconds(1)
            }
        }
    }

    /// A parsed header value: the instant and how finely the value can name it.
    package struct Reading: Hashable, Sendable {
        /// The instant written in the header.
        package let time: UnixTime
        /// The resolution of the written value: the server's clock may have read anywhere within
        /// this much of ``time`` (truncated, rounded or ceilinged).
        package let resolution: Duration
    }

    /// The header's name, matched case-insensitively.
    package var name: String
    /// The unit of its value.
    package var unit: Unit

    /// Creates a timestamp header description; epoch milliseconds unless told otherwise.
    package init(name: String, unit: Unit = .milliseconds) {
        self.name = name
        self.unit = unit
    }

    /// Parses a header value: ASCII digits, plus for ``Unit/seconds`` an optional `.` and up to 9
    /// fraction digits; surrounding whitespace is ignored. Never traps.
    package func parse(_ value: String) throws(HTTPTimestampError) -> Reading {
        var bytes = Array(value.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
        bytes = Array(bytes[start...])
        guard !bytes.isEmpty else { throw HTTPTimestampError(.empty, "the \(name) value is empty") }
        let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        let integerPart = bytes[..<(dot ?? bytes.endIndex)]
        let fractionPart = dot.map { bytes[($0 + 1)...] } ?? []
        if dot != nil && unit != .seconds {
            throw HTTPTimestampError(.notANumber, "\(name) in \(unit.rawValue) must be a whole number")
        }
        guard !integerPart.isEmpty, integerPart.allSatisfy(Self.isDigit),
            fractionPart.allSatisfy(Self.isDigit), dot == nil || !fractionPart.isEmpty
        else {
            throw HTTPTimestampError(
                .notANumber, "'\(value)' in \(name) is not a non-negative decimal number")
        }
        guard fractionPart.count <= 9 else {
            throw HTTPTimestampError(.tooPrecise, "\(name) has more than 9 fraction digits")
        }
        var whole: Int64 = 0
        for digit in integerPart {
            let (times10, overflow1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflow1 && !overflow2 else {
                throw HTTPTimestampError(.outOfRange, "'\(value)' in \(name) is too large")
            }
            whole = sum
        }
        var fraction = fractionPart.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        var resolution = unit.step
        for _ in 0..<fractionPart.count { resolution = resolution / 10 }
        for _ in fractionPart.count..<9 { fraction *= 10 }
        let time = UnixTime(sinceEpoch: unit.step * whole + .nanoseconds(fraction))
        return Reading(time: time, resolution: resolution)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

/// Why a timestamp header value could not be read: a ``HTTPTimestampErrorCode`` and a reason.
package typealias HTTPTimestampError = CodedError<HTTPTimestampErrorCode>

/// What kind of problem an ``HTTPTimestampError`` is.
package enum HTTPTimestampErrorCode: String, ErrorCode, CaseIterable {
    /// The value is empty.
    case empty = "empty"
    /// The value is not a non-negative decimal number (in the form the unit allows).
    case notANumber = "not_a_number"
    /// The number does not fit in 64 bits.
    case outOfRange = "out_of_range"
    /// More than 9 fraction digits (finer than a nanosecond).
    case tooPrecise = "too_precise"
}
