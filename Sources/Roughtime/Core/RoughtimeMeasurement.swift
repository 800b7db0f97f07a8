import SNTP

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
