#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NetworkClock

/// How the CLI writes `--json`: Foundation's `JSONEncoder`, compact, keys sorted so the output is
/// stable and diffable, and `/` left unescaped so URLs stay readable.
///
/// Numbers are `Double`s: `JSONEncoder` writes them with the same shortest round-trip digits the
/// CLI has always printed (`1.5`, `4.1271094232798e-05`, `1796094319.215187`, integral values
/// without a fraction).
enum JSONOutput {
    /// One JSON object on one line.
    static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            // Only a non-finite number can fail, and every number here comes from a Duration or a
            // UnixTime, which are finite. Still print valid JSON if it ever happens.
            let reason = String(describing: error).replacing("\"", with: "'")
            return "{\"error\":\"cannot encode the JSON output: \(reason)\"}"
        }
    }
}

/// A value whose key is always written: `null` when there is no value.
///
/// The `--json` shapes keep some keys with `null` (a source's `reason`, or `offset` when it gave no
/// sample) and leave others out (`kiss_code` unless there was a Kiss-o'-Death). A property of type
/// `Nullable<T>` is the first kind; a plain `T?` (encoded with `encodeIfPresent` by the synthesised
/// conformance) is the second.
struct Nullable<Wrapped: Encodable>: Encodable {
    /// The value, or nil for `null`.
    var value: Wrapped?

    /// Wraps `value`.
    init(_ value: Wrapped?) {
        self.value = value
    }

    /// Writes the value, or `null`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value {
            try container.encode(value)
        } else {
            try container.encodeNil()
        }
    }
}
