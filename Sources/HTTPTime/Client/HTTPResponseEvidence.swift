import NetClockPlatform
import TimeValues

/// What one HTTP response says about the time: the header it was read from and the interval.
package struct HTTPResponseEvidence: Sendable {
    package var headerName: String
    package var headerValue: String
    /// The true time at the response's arrival, by the server's reading.
    package var interval: TrueTimeInterval

    /// Reads the server's time from a response's headers (looked up case-insensitively by `field`)
    /// and turns it into the interval of true time at `received`, given the monotonic instants of
    /// sending and receiving and the local clock's frequency tolerance over the round trip.
    /// Refuses cached responses (``cacheHit(field:)``).
    package static func read(
        field: (String) -> String?, timestampHeader: HTTPTimestampHeader?, sent: MonotonicInstant,
        received: MonotonicInstant, tolerancePPM: Double, referenceYear: Int64
    ) throws(HTTPTimeError) -> HTTPResponseEvidence {
        if let evidence = cacheHit(field: field) {
            throw HTTPTimeError(
                .cachedResponse, "the response came from a cache (\(evidence)), so its time is stale")
        }
        if let header = timestampHeader {
            guard let value = field(header.name) else {
                throw HTTPTimeError(.missingTimestampHeader, "the response has no \(header.name) header")
            }
            let reading: HTTPTimestampHeader.Reading
            do {
                reading = try header.parse(value)
            } catch {
                throw HTTPTimeError(.malformedTimestampHeader, "\(header.name): \(error.reason)")
            }
            let interval = TrueTimeInterval(
                serverTimestamp: reading.time, resolution: reading.resolution, sent: sent, received: received,
                tolerancePPM: tolerancePPM)
            return HTTPResponseEvidence(headerName: header.name, headerValue: value, interval: interval)
        }
        guard let value = field("Date") else {
            throw HTTPTimeError(.missingDateHeader, "the response has no Date header")
        }
        let date: HTTPDate
        do {
            date = try HTTPDate(parsing: value, referenceYear: referenceYear)
        } catch {
            throw HTTPTimeError(.malformedDateHeader, "Date '\(value)' is not an HTTP-date: \(error.reason)")
        }
        // An HTTP-date is formatted from the clock's whole seconds: it read in [date, date + 1 s).
        let interval = TrueTimeInterval(
            serverRead: date.time, date.time + .seconds(1), sent: sent, received: received,
            tolerancePPM: tolerancePPM)
        return HTTPResponseEvidence(headerName: "Date", headerValue: value, interval: interval)
    }

    /// What says the response was served from a cache rather than by the origin now, or nil: an
    /// `Age` other than 0 (RFC 9111 §5.1), an `X-Cache` starting with `HIT` (Squid, Varnish, CDNs),
    /// or a `Cache-Status` (RFC 9211) with a `hit` parameter. A hit is refused even with `Age: 0`:
    /// its `Date` is the origin's from an earlier request, and `Age` counts whole seconds.
    static func cacheHit(field: (String) -> String?) -> String? {
        func shown(_ name: String, _ value: String) -> String {
            let visible = value.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }
            return "\(name): \(String(String.UnicodeScalarView(visible)).prefix(64))"
        }
        if let age = field("Age")?.trimmingWhitespace(), age != "0" {
            return shown("Age", age)
        }
        if let cache = field("X-Cache"),
            cache.trimmingWhitespace().uppercased().hasPrefix("HIT")
        {
            return shown("X-Cache", cache)
        }
        if let status = field("Cache-Status") {
            let parameters = status.split(whereSeparator: { $0 == ";" || $0 == "," }).map {
                $0.trimmingWhitespace().lowercased()
            }
            if parameters.contains("hit") { return shown("Cache-Status", status) }
        }
        return nil
    }

    /// The calendar year of `time`, the reference for RFC 850 two-digit years.
    package static func year(of time: UnixTime) -> Int64 {
        CivilDate.of(time).year
    }
}
