// libFuzzer target: the HTTP/1.x response-head parser (RFC 9112 §4, §5), the search for the end of a
// head in a stream, and the evidence (Date or timestamp header → offset interval) read from a head.
//
// Built by Tools/fuzz.sh as its own module, linked with the modules NetClockPlatform, SNTP,
// NetClockTLS and HTTPTime compiled for fuzzing; it uses their `package` API. Not part of the
// Swift package.
//
// The input bytes are the stream a server sends. They are searched for the end of a head, parsed
// whole, parsed cut at that end, compared with an independent reference parser, written back and
// parsed again, and fed in chunks to a model of HTTPHeadClient's receive loop. Parameters (search
// starts, chunk sizes, clock readings) come from a hash of the input. Every violated invariant calls
// `fatalError` with a message, which libFuzzer reports as a crash.

import HTTPTime
import TimeValues

private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("FuzzHTTPHead invariant violated: \(message())")
    }
}

/// The libFuzzer entry point: checks one input (see the file comment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHead(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }

    let end = checkEndOfHead(bytes, hash: hash)
    let parsed = parse(bytes)
    if let end {
        // Parsing stops at the empty line endOfHead found: what follows it is ignored.
        require(parse(bytes[..<end]) == parsed, "parsing stops at a different place than endOfHead \(end)")
    }
    checkAgainstReference(bytes, parsed)
    checkReceiveLoop(bytes, hash: hash)
    switch parsed {
    case .success(let head):
        checkHead(head, hash: hash)
    case .failure(let error):
        require(!error.description.isEmpty && !error.reason.isEmpty, "an error without a reason")
    }
    return 0
}

private func parse(_ bytes: some Collection<UInt8>) -> Result<HTTPResponseHead, HTTPResponseHeadError> {
    do {
        return .success(try HTTPResponseHead(parsing: bytes))
    } catch {
        return .failure(error)
    }
}

// MARK: - End of head

/// Checks `endOfHead` from several starts against a plain search and returns its result from 0.
private func checkEndOfHead(_ bytes: [UInt8], hash: UInt64) -> Int? {
    let whole = HTTPResponseHead.endOfHead(in: bytes)
    let hashed = Int(truncatingIfNeeded: hash >> 33) % (bytes.count + 3) - 1
    for start in [0, -1, .min, .max, bytes.count, bytes.count - 1, bytes.count - 2, hashed] {
        let found = start == 0 ? whole : HTTPResponseHead.endOfHead(in: bytes, searchingFrom: start)
        let expected = referenceEndOfHead(bytes, from: start)
        require(
            found == expected,
            "endOfHead from \(start) is \(found.map(String.init) ?? "nil"), not \(expected.map(String.init) ?? "nil")"
        )
        if let found {
            require(found >= 2 && found <= bytes.count, "endOfHead \(found) outside 2…\(bytes.count)")
            let tail = bytes[..<found].suffix(3)
            require(
                tail.suffix(2).elementsEqual([0x0A, 0x0A]) || tail.elementsEqual([0x0A, 0x0D, 0x0A]),
                "endOfHead \(found) is not just past LF LF or LF CR LF")
        }
    }
    // Searching a growing buffer from its previous length minus 2, as the client does, finds the
    // same end as searching everything at once.
    let cut = Int(truncatingIfNeeded: hash >> 40) % (bytes.count + 1)
    if HTTPResponseHead.endOfHead(in: Array(bytes[..<cut])) == nil {
        let resumed = HTTPResponseHead.endOfHead(in: bytes, searchingFrom: max(0, cut - 2))
        require(
            resumed == whole,
            "resuming the search at \(cut) - 2 finds \(String(describing: resumed)), not \(String(describing: whole))"
        )
    }
    return whole
}

/// The smallest index just past an LF LF or LF CR LF whose first LF is at `from` or later.
private func referenceEndOfHead(_ bytes: [UInt8], from start: Int) -> Int? {
    var best: Int?
    for (terminator, length) in [([UInt8]([0x0A, 0x0A]), 2), ([0x0A, 0x0D, 0x0A], 3)] {
        var position = max(0, start)
        while position <= bytes.count - length {
            if bytes[position..<(position + length)].elementsEqual(terminator) {
                best = min(best ?? .max, position + length)
                break
            }
            position += 1
        }
    }
    return best
}

// MARK: - Reference parser

/// An independent reading of the grammar documented on `HTTPResponseHead`; only acceptance and
/// the result are compared, not which error is reported.
private func referenceParse(_ bytes: [UInt8]) -> HTTPResponseHead? {
    var lines: [[UInt8]] = []
    var current: [UInt8] = []
    var index = 0
    var ended = false
    while !ended {
        let atEnd = index == bytes.count
        if atEnd || bytes[index] == 0x0A {
            if current.last == 0x0D { current.removeLast() }
            if current.contains(0x0D) { return nil }
            if current.isEmpty { break }
            lines.append(current)
            current = []
            ended = atEnd
        } else {
            current.append(bytes[index])
        }
        index += 1
    }
    guard let status = lines.first else { return nil }
    func isValue(_ byte: UInt8) -> Bool { !(byte < 0x20 && byte != 0x09) && byte != 0x7F }
    func isTchar(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
    func trimmed(_ raw: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var value = raw
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        return value
    }
    func text(_ raw: some Sequence<UInt8>) -> String {
        String(String.UnicodeScalarView(raw.map(Unicode.Scalar.init)))
    }

    let prefix = Array("HTTP/1.".utf8)
    guard status.count >= 12, status.starts(with: prefix), status[7] >= 0x30 && status[7] <= 0x39,
        status[8] == 0x20, status[9..<12].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
    else { return nil }
    let code = status[9..<12].reduce(0) { $0 * 10 + Int($1) - 0x30 }
    guard code >= 100 && code <= 599 else { return nil }
    var reason = ""
    if status.count > 12 {
        guard status[12] == 0x20, status[13...].allSatisfy(isValue) else { return nil }
        reason = text(status[13...])
    }
    var fields: [HTTPResponseHead.Field] = []
    for line in lines.dropFirst() {
        if line[0] == 0x20 || line[0] == 0x09 {
            guard !fields.isEmpty else { return nil }
            let more = trimmed(line[...])
            guard more.allSatisfy(isValue) else { return nil }
            if !more.isEmpty {
                let joined =
                    fields[fields.count - 1].value.isEmpty
                    ? text(more) : fields[fields.count - 1].value + " " + text(more)
                fields[fields.count - 1].value = joined
            }
            continue
        }
        guard let colon = line.firstIndex(of: 0x3A), colon > 0, line[..<colon].allSatisfy(isTchar) else {
            return nil
        }
        let value = trimmed(line[(colon + 1)...])
        guard value.allSatisfy(isValue) else { return nil }
        fields.append(HTTPResponseHead.Field(name: text(line[..<colon]), value: text(value)))
    }
    return HTTPResponseHead(
        statusCode: code, reasonPhrase: reason, version: text(status[0..<8]), fields: fields)
}

private func checkAgainstReference(
    _ bytes: [UInt8], _ parsed: Result<HTTPResponseHead, HTTPResponseHeadError>
) {
    let expected = referenceParse(bytes)
    switch parsed {
    case .success(let head):
        require(
            expected == head, "parsed to \(head), the reference parser gives \(String(describing: expected))")
    case .failure(let error):
        if let expected { require(false, "rejected (\(error)), the reference parser gives \(expected)") }
    }
}

// MARK: - Parsed head

/// The ISO-8859-1 bytes of `text`, or nil when a scalar is above U+00FF.
private func latin1Bytes(_ text: String) -> [UInt8]? {
    var bytes: [UInt8] = []
    for scalar in text.unicodeScalars {
        guard scalar.value <= 0xFF else { return nil }
        bytes.append(UInt8(scalar.value))
    }
    return bytes
}

private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
    default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

private func asciiLowercased(_ bytes: [UInt8]) -> [UInt8] {
    bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

private func checkHead(_ head: HTTPResponseHead, hash: UInt64) {
    require((100...599).contains(head.statusCode), "status \(head.statusCode)")
    let version = latin1Bytes(head.version) ?? []
    require(
        version.count == 8 && version.starts(with: Array("HTTP/1.".utf8)) && version[7] >= 0x30
            && version[7] <= 0x39,
        "version \(head.version.debugDescription)")
    let forbidden: Set<UInt8> = [0x00, 0x0A, 0x0D]
    guard let reason = latin1Bytes(head.reasonPhrase) else {
        return require(false, "reason phrase \(head.reasonPhrase.debugDescription) is not ISO-8859-1")
    }
    require(
        !reason.contains(where: forbidden.contains), "reason phrase \(head.reasonPhrase.debugDescription)")
    var names: [[UInt8]] = []
    var values: [[UInt8]] = []
    for field in head.fields {
        guard let name = latin1Bytes(field.name), let value = latin1Bytes(field.value) else {
            return require(false, "field \(field) is not ISO-8859-1")
        }
        require(!name.isEmpty && name.allSatisfy(isTokenByte), "field name \(field.name.debugDescription)")
        require(!value.contains(where: forbidden.contains), "field value \(field.value.debugDescription)")
        require(
            value.first != 0x20 && value.first != 0x09 && value.last != 0x20 && value.last != 0x09,
            "field value \(field.value.debugDescription) has surrounding whitespace")
        names.append(name)
        values.append(value)
    }

    // Lookups are ASCII case-insensitive and agree with a plain scan (for at most 8 of the names,
    // since each lookup scans all fields).
    let lowered = names.map(asciiLowercased)
    var checked: [[UInt8]] = []
    let candidates = head.fields.indices.prefix(4) + head.fields.indices.suffix(4)
    for index in candidates where !checked.contains(lowered[index]) {
        checked.append(lowered[index])
        let field = head.fields[index]
        let expected = head.fields.indices.filter { lowered[$0] == lowered[index] }.map {
            head.fields[$0].value
        }
        let all = head.values(forField: field.name)
        require(all == expected, "values(forField: \(field.name)) is \(all), not \(expected)")
        var distinct: [String] = []
        for value in expected where !distinct.contains(value) { distinct.append(value) }
        let value = head.value(forField: field.name)
        require(
            value == distinct.joined(separator: ", "),
            "value(forField: \(field.name)) is \(String(describing: value))")
        // Mixed case: flip the case of the letters selected by the hash.
        let mixed = String(
            decoding: names[index].enumerated().map { offset, byte in
                let isLetter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
                return isLetter && (hash >> UInt64(offset % 64)) & 1 == 1 ? byte ^ 0x20 : byte
            }, as: UTF8.self)
        for query in [field.name.uppercased(), field.name.lowercased(), mixed] {
            require(
                head.value(forField: query) == value, "value(forField: \(query)) differs from \(field.name)")
            require(
                head.values(forField: query) == all, "values(forField: \(query)) differs from \(field.name)")
        }
    }
    require(
        head.value(forField: "") == nil && head.values(forField: "").isEmpty, "a field with an empty name")

    // Written back in one of the styles, with anything after the head, the head parses to itself.
    for style in [Int(hash >> 61) % 3] {
        var text = serialize(head, reason: reason, names: names, values: values, style: style)
        let length = text.count
        require(
            HTTPResponseHead.endOfHead(in: text) == length,
            "the end of the written head (style \(style)) is not found")
        text += [0x0D, 0x20, 0x00, 0x0A, 0x0A]
        let again = parse(text)
        require(again == .success(head), "written back in style \(style), \(head) parses to \(again)")
    }
    checkEvidence(head, hash: hash)
}

/// `style` 0: CRLF, `name: value`; 1: bare LF, `name:\tvalue\t`, a trailing SP when the reason is
/// empty; 2: CRLF with values folded at their first single space.
private func serialize(
    _ head: HTTPResponseHead, reason: [UInt8], names: [[UInt8]], values: [[UInt8]], style: Int
)
    -> [UInt8]
{
    let lineEnd: [UInt8] = style == 1 ? [0x0A] : [0x0D, 0x0A]
    var text = Array(head.version.utf8) + [0x20] + Array(String(head.statusCode).utf8)
    if !reason.isEmpty || style == 1 { text += [0x20] + reason }
    text += lineEnd
    for (name, value) in zip(names, values) {
        text += name + [0x3A]
        switch style {
        case 1:
            text += [0x09] + value + [0x09]
        case 2:
            let fold = value.indices.first { index in
                index > 0 && index < value.count - 1 && value[index] == 0x20
                    && ![0x20, 0x09].contains(value[index - 1]) && ![0x20, 0x09].contains(value[index + 1])
            }
            if let fold {
                text += [0x20] + value[..<fold] + lineEnd + [0x20, 0x09] + value[(fold + 1)...] + [0x20]
            } else {
                text += [0x20] + value
            }
        default:
            text += [0x20] + value
        }
        text += lineEnd
    }
    return text + lineEnd
}

// MARK: - Receive loop

private enum Outcome: Equatable {
    case head(HTTPResponseHead, consumed: Int, end: Int)
    case malformed(HTTPResponseHeadError)
    case switchingProtocols
    case incomplete
}

/// The receive loop of HTTPHeadClient (without sockets and limits): append a chunk, search from the
/// previous length minus 2, parse each complete head, skip informational ones.
private func receive(_ bytes: [UInt8], chunk: Int) -> Outcome {
    var buffer: [UInt8] = []
    var consumed = 0
    var searchFrom = 0
    var offset = 0
    while offset < bytes.count {
        let next = min(bytes.count, offset + chunk)
        buffer += bytes[offset..<next]
        offset = next
        while let end = HTTPResponseHead.endOfHead(in: buffer, searchingFrom: searchFrom) {
            let head: HTTPResponseHead
            do {
                head = try HTTPResponseHead(parsing: buffer[..<end])
            } catch {
                return .malformed(error)
            }
            if head.statusCode == 101 { return .switchingProtocols }
            guard (100..<200).contains(head.statusCode) else {
                return .head(head, consumed: consumed, end: end)
            }
            consumed += end
            buffer.removeFirst(end)
            searchFrom = 0
        }
        searchFrom = max(0, buffer.count - 2)
    }
    return .incomplete
}

private func checkReceiveLoop(_ bytes: [UInt8], hash: UInt64) {
    let whole = receive(bytes, chunk: max(1, bytes.count))
    let chunk = Int(hash % 8) + 1  // 1…8 bytes at a time
    if chunk < bytes.count {
        let chunked = receive(bytes, chunk: chunk)
        require(chunked == whole, "received in chunks of \(chunk): \(chunked), at once: \(whole)")
    }
    if case .head(let head, _, _) = whole {
        require((200...599).contains(head.statusCode), "the final head has status \(head.statusCode)")
    }
}

// MARK: - Evidence

private func checkEvidence(_ head: HTTPResponseHead, hash: UInt64) {
    let wall = UnixTime(
        seconds: Int64(bitPattern: hash) >> 24, nanoseconds: Int64(hash & 0x3FFF_FFFF) % 1_000_000_000)
    let sent = MonotonicInstant(sinceOrigin: .seconds(1000))
    let received = sent + .nanoseconds(Int64((hash >> 8) & 0xFFF_FFFF))
    let referenceYear = HTTPResponseEvidence.year(of: wall)
    let field = { (name: String) in head.value(forField: name) }
    let age = head.value(forField: "Age")
    let last = head.fields.last?.name ?? "X-Timestamp"
    let unit = HTTPTimestampHeader.Unit.allCases[Int(hash % 4)]
    for timestampHeader in [nil, HTTPTimestampHeader(name: last, unit: unit)] {
        let name = timestampHeader?.name ?? "Date"
        let value = head.value(forField: name)
        // What the header says on its own, or nil when it does not parse (or is absent).
        let direct: TrueTimeInterval? = value.flatMap { value in
            if let timestampHeader {
                return (try? timestampHeader.parse(value)).map {
                    TrueTimeInterval(
                        serverRead: $0.time - $0.resolution, $0.time + $0.resolution, sent: sent,
                        received: received, tolerancePPM: 15)
                }
            }
            return (try? HTTPDate(parsing: value, referenceYear: referenceYear)).map {
                TrueTimeInterval(
                    serverRead: $0.time, $0.time + .seconds(1), sent: sent, received: received,
                    tolerancePPM: 15)
            }
        }
        let shownAge = age?.debugDescription ?? "absent"
        let shownValue = value?.debugDescription ?? "absent"
        do {
            let evidence = try HTTPResponseEvidence.read(
                field: field, timestampHeader: timestampHeader, sent: sent, received: received,
                tolerancePPM: 15, referenceYear: referenceYear)
            let ageIsZero = age.map {
                $0.unicodeScalars.filter { !$0.properties.isWhitespace }.elementsEqual("0".unicodeScalars)
            }
            require(ageIsZero ?? true, "Age \(shownAge) was not refused")
            require(
                evidence.headerName == name && evidence.headerValue == value,
                "evidence from \(evidence.headerName): \(evidence.headerValue), not \(name): \(shownValue)")
            require(
                evidence.interval == direct,
                "interval \(evidence.interval), not \(String(describing: direct))")
            require(
                evidence.interval.earliest <= evidence.interval.latest, "empty interval \(evidence.interval)")
            _ = evidence.interval.description
        } catch {
            _ = error.description
            switch error.code {
            case .cachedResponse:
                require(age != nil && age != "0", "refused as cached with Age \(shownAge)")
            case .missingDateHeader, .missingTimestampHeader:
                require(value == nil, "\(name) reported missing but is \(shownValue)")
                require(
                    error.code == (timestampHeader == nil ? .missingDateHeader : .missingTimestampHeader),
                    "\(error.code) for \(name)")
            case .malformedDateHeader, .malformedTimestampHeader:
                require(
                    error.code == (timestampHeader == nil ? .malformedDateHeader : .malformedTimestampHeader),
                    "\(error.code) for \(name)")
                require(value != nil && direct == nil, "\(name): \(shownValue) refused but parses")
            default:
                require(false, "unexpected error \(error)")
            }
        }
    }
}
