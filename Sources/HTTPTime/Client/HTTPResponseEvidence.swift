import Foundation
import SNTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one HTTP response says about the offset: the header it was read from and the interval.
package struct HTTPResponseEvidence: Sendable {
    package var headerName: String
    package var headerValue: String
    package var interval: OffsetInterval

    /// Reads the server's time from a response's headers (looked up case-insensitively by `field`)
    /// and turns it into an offset interval, given the local wall times of sending and receiving.
    /// Refuses cached responses (`Age` present and not 0).
    package static func read(
        field: (String) -> String?, timestampHeader: HTTPTimestampHeader?, sent: UnixTime,
        received: UnixTime, referenceYear: Int64
    ) throws(HTTPTimeError) -> HTTPResponseEvidence {
        if let age = field("Age")?.trimmingCharacters(in: .whitespaces), age != "0" {
            throw HTTPTimeError(
                .cachedResponse, "the response came from a cache (Age: \(age)), so its time is stale")
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
            let interval = OffsetInterval.timestamp(
                reading.time, resolution: reading.resolution, sent: sent, received: received)
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
        let interval = OffsetInterval.dateHeader(date.time, sent: sent, received: received)
        return HTTPResponseEvidence(headerName: "Date", headerValue: value, interval: interval)
    }

    /// The calendar year of `time`, the reference for RFC 850 two-digit years.
    package static func year(of time: UnixTime) -> Int64 {
        CivilDate.of(time).year
    }
}

extension OffsetInterval {
    /// The interval a server timestamp gives: the server read `serverTime` (± `resolution`, which
    /// covers truncating, rounding or ceilinging clocks; pass `.zero` for an exact reading, and for a
    /// truncated 1-second `Date` use ``dateHeader(_:sent:received:)``) at some instant between the
    /// local wall times `sent` and `received`.
    package static func timestamp(
        _ serverTime: UnixTime, resolution: Duration, sent: UnixTime, received: UnixTime
    ) -> OffsetInterval {
        OffsetInterval(
            lower: (serverTime - resolution) - received, upper: (serverTime + resolution) - sent)
    }

    /// The interval a `Date` header gives: the server's clock read somewhere in `[date, date + 1 s)`
    /// at an instant between the local wall times `sent` and `received`.
    package static func dateHeader(_ date: UnixTime, sent: UnixTime, received: UnixTime)
        -> OffsetInterval
    {
        OffsetInterval(lower: date - received, upper: (date + .seconds(1)) - sent)
    }
}
