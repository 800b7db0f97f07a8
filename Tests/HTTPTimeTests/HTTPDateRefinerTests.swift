import LoopbackServers
import Testing
import TimeValues

@testable import HTTPTime

/// The refining logic alone (``HTTPDateRefiner``), against a simulated server.
struct HTTPDateRefinerTests {
    /// The refining logic alone, against a simulated server: sound in every trial, and eight
    /// requests narrow a 1-second `Date` to about the round-trip time.
    @Test func refinerIsSoundAndConvergesInSimulation() throws {
        var generator = SplitMix64(seed: 99)
        var widths: [Duration] = []
        for _ in 0..<500 {
            let truth = Duration.nanoseconds(
                Int64.random(in: -5_000_000_000...5_000_000_000, using: &generator))
            let phase = Duration.nanoseconds(Int64.random(in: 0..<1_000_000_000, using: &generator))
            let mapping = TimeMapping(
                wall: UnixTime(seconds: 1_800_000_000) + phase,
                monotonic: MonotonicInstant(sinceOrigin: .seconds(50)))
            var refiner = HTTPDateRefiner(frequencyTolerancePPM: 15, targetHalfWidth: .zero)
            var now = mapping.monotonic
            for _ in 0..<8 {
                let sent = refiner.nextSendInstant(after: now) ?? now
                #expect(sent >= now && sent < now + .seconds(1))
                let stamped = sent + .microseconds(Int64.random(in: 100...23_000, using: &generator))
                let received = stamped + .microseconds(Int64.random(in: 100...3_000, using: &generator))
                let serverTime = mapping.wallTime(at: stamped) + truth
                let date = UnixTime(seconds: serverTime.seconds)
                let sample = TrueTimeInterval(
                    serverRead: date, date + .seconds(1), sent: sent, received: received, tolerancePPM: 15)
                let added = refiner.add(sample, sent: sent, received: received)
                let combined = try #require(added)
                let offsets = combined.offsets(fromWall: mapping.wallTime(at: combined.instant))
                #expect(offsets.contains(truth), "\(offsets) misses \(truth)")
                now = received + .milliseconds(20)
            }
            widths.append(try #require(refiner.interval).radius * 2)
        }
        let median = widths.sorted()[widths.count / 2]
        #expect(median < .milliseconds(40), "median width \(median)")
    }
}
