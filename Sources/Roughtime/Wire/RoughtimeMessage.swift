/// A Roughtime message (RFC 10049 §4): (tag, value) pairs, sorted by tag, each tag at most once,
/// every value a multiple of four bytes long.
///
/// ```
/// uint32 N | N−1 uint32 offsets | N uint32 tags | values
/// ```
///
/// ``init(parsing:)`` is total: any bytes give a message or a ``RoughtimeError`` naming the first
/// rule they break. Nested messages (`SREP`, `CERT`, `DELE`) are parsed the same way from a value.
package struct RoughtimeMessage: Hashable, Sendable {
    /// One pair.
    package struct Entry: Hashable, Sendable {
        /// The tag.
        package var tag: RoughtimeTag
        /// The value's bytes.
        package var value: [UInt8]

        /// A pair.
        package init(_ tag: RoughtimeTag, _ value: [UInt8]) {
            self.tag = tag
            self.value = value
        }
    }

    /// The pairs, in ascending tag order.
    package private(set) var entries: [Entry]

    /// A message of `entries`, sorted by tag. A later entry with the same tag replaces an earlier one.
    package init(_ entries: [Entry]) {
        var byTag: [RoughtimeTag: [UInt8]] = [:]
        for entry in entries { byTag[entry.tag] = entry.value }
        self.entries = byTag.map { Entry($0.key, $0.value) }.sorted { $0.tag < $1.tag }
    }

    /// Parses a message.
    /// - Throws: ``RoughtimeError`` with code `truncated_message`, `empty_message`,
    ///   `misaligned_message`, `bad_offsets`, `unsorted_tags` or `duplicate_tag`. `what` names the
    ///   message in the reason (e.g. `SREP`).
    package init(parsing bytes: some RandomAccessCollection<UInt8>, what: String = "message")
        throws(RoughtimeError)
    {
        let bytes = Array(bytes)
        guard bytes.count >= 4 else {
            throw RoughtimeError(
                .truncatedMessage, "\(what): \(bytes.count) bytes, too short for a tag count")
        }
        let count = Int(Self.uint32(bytes, at: 0))
        guard count > 0 else { throw RoughtimeError(.emptyMessage, "\(what): no tags") }
        // 4 (count) + 4·(N−1) (offsets) + 4·N (tags): no overflow, N < 2^32.
        let headerLength = 8 * count
        guard headerLength <= bytes.count else {
            throw RoughtimeError(
                .truncatedMessage,
                "\(what): \(count) tags need a \(headerLength)-byte header, only \(bytes.count) bytes")
        }
        let valuesLength = bytes.count - headerLength
        guard valuesLength % 4 == 0 else {
            throw RoughtimeError(.misalignedMessage, "\(what): values section of \(valuesLength) bytes")
        }
        var offsets = [0]
        offsets.reserveCapacity(count + 1)
        for index in 1..<count {
            let offset = Int(Self.uint32(bytes, at: 4 * index))
            guard offset % 4 == 0 else {
                throw RoughtimeError(.misalignedMessage, "\(what): offset \(offset) is not a multiple of 4")
            }
            guard offset >= offsets[index - 1], offset <= valuesLength else {
                throw RoughtimeError(
                    .badOffsets,
                    "\(what): offset \(offset) after \(offsets[index - 1]) in \(valuesLength) bytes of values"
                )
            }
            offsets.append(offset)
        }
        offsets.append(valuesLength)
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        let tagsStart = 4 * count
        for index in 0..<count {
            let tag = RoughtimeTag(rawValue: Self.uint32(bytes, at: tagsStart + 4 * index))
            if let previous = entries.last?.tag {
                if tag == previous { throw RoughtimeError(.duplicateTag, "\(what): tag \(tag) twice") }
                if tag < previous {
                    throw RoughtimeError(.unsortedTags, "\(what): tag \(tag) after \(previous)")
                }
            }
            let start = headerLength + offsets[index]
            entries.append(Entry(tag, Array(bytes[start..<(headerLength + offsets[index + 1])])))
        }
        self.entries = entries
    }

    /// The value of `tag`, or nil.
    package func value(_ tag: RoughtimeTag) -> [UInt8]? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].tag < tag { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].tag == tag ? entries[low].value : nil
    }

    /// The value of `tag`.
    /// - Throws: `missing_tag` naming `what` (the message it should be in).
    package func required(_ tag: RoughtimeTag, in what: String) throws(RoughtimeError) -> [UInt8] {
        guard let value = value(tag) else { throw RoughtimeError(.missingTag, "no \(tag) in \(what)") }
        return value
    }

    /// The value of `tag`, which must be exactly `length` bytes.
    /// - Throws: `missing_tag`, `truncated_tag` or `oversized_tag`.
    package func required(_ tag: RoughtimeTag, length: Int, in what: String) throws(RoughtimeError) -> [UInt8]
    {
        let value = try required(tag, in: what)
        guard value.count == length else {
            throw RoughtimeError(
                value.count < length ? .truncatedTag : .oversizedTag,
                "\(tag) in \(what) is \(value.count) bytes, not \(length)")
        }
        return value
    }

    /// The `uint32` value of `tag`.
    package func uint32(_ tag: RoughtimeTag, in what: String) throws(RoughtimeError) -> UInt32 {
        Self.uint32(try required(tag, length: 4, in: what), at: 0)
    }

    /// The `uint64` value of `tag`.
    package func uint64(_ tag: RoughtimeTag, in what: String) throws(RoughtimeError) -> UInt64 {
        let value = try required(tag, length: 8, in: what)
        return UInt64(Self.uint32(value, at: 0)) | UInt64(Self.uint32(value, at: 4)) << 32
    }

    /// The encoded message: header, then the values in tag order. Every value must be a multiple of
    /// four bytes long (the callers build them so).
    package var encoded: [UInt8] { Self.encode(entries) }

    /// `entries` encoded in the order given, duplicates and all: the fake server's hostile replies
    /// use it to break the ordering rules on purpose.
    package static func encode(_ entries: [Entry]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 * entries.count + entries.reduce(0) { $0 + $1.value.count })
        appendUInt32(UInt32(entries.count), to: &bytes)
        var offset = 0
        for entry in entries.dropLast() {
            offset += entry.value.count
            appendUInt32(UInt32(truncatingIfNeeded: offset), to: &bytes)
        }
        for entry in entries { bytes += entry.tag.bytes }
        for entry in entries { bytes += entry.value }
        return bytes
    }

    /// The little-endian `uint32` at `offset` (the caller checked the bounds).
    package static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    /// Appends `value` little-endian.
    package static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    /// `value` as four little-endian bytes.
    package static func bytes(_ value: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        appendUInt32(value, to: &bytes)
        return bytes
    }

    /// `value` as eight little-endian bytes.
    package static func bytes(_ value: UInt64) -> [UInt8] {
        bytes(UInt32(truncatingIfNeeded: value)) + bytes(UInt32(truncatingIfNeeded: value >> 32))
    }
}
