#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import TimeValues

/// One ``HTTPTimeClient`` measurement: performs the requests its ``HTTPMeasurementCore`` asks for
/// over the transport, and nothing else.
struct HTTPMeasurementRun {
    let transport: HTTPTransport
    let clock: any MonotonicClock
    private var core: HTTPMeasurementCore

    init(
        url: URL, configuration: HTTPTimeClient.Configuration, transport: HTTPTransport,
        clock: any MonotonicClock, mapping: TimeMapping, deadline: MonotonicInstant
    ) {
        self.transport = transport
        self.clock = clock
        self.core = HTTPMeasurementCore(
            url: url, configuration: configuration, mapping: mapping, deadline: deadline,
            proxy: transport.target.proxy,
            certificatesUnchecked: transport.client.certificateTime == .unchecked)
    }

    mutating func execute() async throws(HTTPTimeError) -> HTTPTimeMeasurement {
        // One clock reading plans each request: the measurement's start for the first, a fresh
        // one for each later.
        var now = core.mapping.monotonic
        while true {
            switch core.next(now: now) {
            case .finish(let measurement): return measurement
            case .fail(let error): throw error
            case .send(let request):
                let outcome = await transport.perform(
                    method: request.method, sendAt: request.sendAt, timeout: request.timeout, now: now)
                if let error = core.receive(outcome) { throw error }
            }
            now = clock.now()
        }
    }
}
