import NetClockPlatform
import SNTP

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
