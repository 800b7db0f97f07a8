import Foundation
import SNTP
import TimeValues

/// An expected JSON value, compared with what `JSONSerialization` decoded: the kind must match
/// (a `true` is not a `1`, a `null` is not an absent key) and so must the value.
indirect enum JSONExpectation: ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
    ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONExpectation])
    case object([String: JSONExpectation])

    init(stringLiteral value: String) { self = .string(value) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: JSONExpectation...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, JSONExpectation)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }
    init(nilLiteral: ()) { self = .null }

    /// Every difference between `actual` (from `JSONSerialization`) and this expectation, one line
    /// each, naming the path: empty when they match.
    func mismatches(_ actual: Any?, at path: String = "$") -> [String] {
        guard let actual else { return ["\(path): missing"] }
        switch self {
        case .null:
            return actual is NSNull ? [] : ["\(path): expected null, got \(actual)"]
        case .bool(let expected):
            guard Self.isBoolean(actual), let value = actual as? Bool else {
                return ["\(path): expected bool \(expected), got \(actual)"]
            }
            return value == expected ? [] : ["\(path): expected \(expected), got \(value)"]
        case .number(let expected):
            guard !Self.isBoolean(actual), actual is NSNumber, let value = actual as? Double else {
                return ["\(path): expected number \(expected), got \(actual)"]
            }
            return value == expected ? [] : ["\(path): expected \(expected), got \(value)"]
        case .string(let expected):
            guard let value = actual as? String else { return ["\(path): expected string, got \(actual)"] }
            return value == expected ? [] : ["\(path): expected \"\(expected)\", got \"\(value)\""]
        case .array(let expected):
            guard let values = actual as? [Any] else { return ["\(path): expected array, got \(actual)"] }
            guard values.count == expected.count else {
                return ["\(path): expected \(expected.count) elements, got \(values.count)"]
            }
            return zip(expected, values).enumerated().flatMap { index, pair in
                pair.0.mismatches(pair.1, at: "\(path)[\(index)]")
            }
        case .object(let expected):
            guard let members = actual as? [String: Any] else {
                return ["\(path): expected object, got \(actual)"]
            }
            let extra = Set(members.keys).subtracting(expected.keys).sorted().map {
                "\(path).\($0): unexpected key"
            }
            return extra
                + expected.keys.sorted().flatMap { key in
                    expected[key].map { $0.mismatches(members[key], at: "\(path).\(key)") } ?? []
                }
        }
    }

    /// Whether a decoded value is a JSON `true`/`false` (Foundation bridges both to a boolean
    /// `NSNumber` subclass, which also answers `as? Double`).
    static func isBoolean(_ value: Any) -> Bool {
        type(of: value) == type(of: NSNumber(value: true) as Any)
    }
}
