import NetClockPlatform
import TimeValues

/// One valid reply with the local instants around it: the request's first transmission and the
/// reply's arrival, both on the local monotonic clock (never the wall clock, which may be wrong or
/// be stepped in the middle).
package struct RoughtimeMeasurement: Hashable, Sendable {
    /// The request the reply answers.
    package let request: RoughtimeRequest
    /// The verified reply.
    package let response: RoughtimeResponse
    /// When the request was first sent (a retransmission does not move it: the server may have
    /// signed in answer to the first copy).
    package let sentAt: MonotonicInstant
    /// When the reply arrived.
    package let receivedAt: MonotonicInstant

    /// A measurement.
    package init(
        request: RoughtimeRequest, response: RoughtimeResponse, sentAt: MonotonicInstant,
        receivedAt: MonotonicInstant
    ) {
        self.request = request
        self.response = response
        self.sentAt = sentAt
        self.receivedAt = receivedAt
    }

    /// The round trip, from the first transmission to the reply.
    package var roundTrip: Duration { receivedAt - sentAt }
}

extension TrueTimeInterval {
    /// What one valid reply proves at its arrival: `MIDP − RADI ≤ true(T4) ≤ MIDP + RADI + δ·(1 + φ)`,
    /// since the server signed at some instant within the round trip *δ* (RFC 10049 §5.2.5; the
    /// reasoning is in HowTheErrorBoundWorks.md, "Roughtime").
    /// - Parameter tolerancePPM: *φ*, the local clock's frequency tolerance in ppm.
    package init(_ measurement: RoughtimeMeasurement, tolerancePPM: Double) {
        let response = measurement.response
        self.init(
            serverRead: response.midpoint - response.radius, response.midpoint + response.radius,
            sent: measurement.sentAt, received: measurement.receivedAt, tolerancePPM: tolerancePPM)
    }
}
