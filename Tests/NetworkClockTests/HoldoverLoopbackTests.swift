import Foundation
import LoopbackServers
import NetClockPlatform
import SNTP
import Testing
import TimeValues
import TimeDoubles

@testable import ClockCore
@testable import NetworkClock
import WallClockReference

/// The case end to end: a server whose clock gains 60 ppm on ours, four syncs a minute
/// apart, then two minutes offline, on a machine whose kernel is not synchronised. Before holdover
/// the estimate drifted uncorrected to −7.4 ms and the bound grew at 500 ppm (60 ms); now the
/// frequency the syncs measured corrects the estimate and the bound grows by its interval.
///
/// Why this is faithful without waiting six minutes: the exchanges are real (SNTP over loopback
/// UDP through the real client, sync engine, ``NetworkClock`` and ``AnchoredClock``); only the
/// clocks they read are simulated, all derived from one simulated timeline as real clocks are all
/// derived from physical time. The machine's oscillator (``SimulatedMachine``) counts it; the
/// fake server stamps T2 and T3 from the same timeline with `frequencyPPM: 60`, so its clock gains
/// exactly 60 ppm on ours from its start. Simulated time stands still during an exchange, so each
/// sample's delay is zero and its bound is the server's root dispersion and precisions (about
/// 102 µs): what a real loopback exchange measures too, give or take its tens of microseconds of
/// round trip. The kernel is scripted as unsynchronised (`STA_UNSYNC`), the case where the bound
/// used to grow at 500 ppm.
@Suite(.serialized, .wallClockReference)
struct HoldoverLoopbackTests {
    @Test func aServerGainingSixtyPPMFourSyncsAMinuteApartThenTwoMinutesOffline() async throws {
        let machine = SimulatedMachine()
        var configuration = FakeNTPServer.Configuration()
        configuration.frequencyPPM = 60
        let server = try FakeNTPServer(configuration: configuration, clock: machine.wallClock)
        defer { server.stop() }
        let startedAt = machine.wallReading
        // The server's clock, as it stamps it: the truth this test holds the clock to.
        func serverTime() -> UnixTime {
            let now = machine.wallReading
            return now + (now - startedAt) * 60e-6
        }
        let clock = NetworkClock(
            configuration: NetworkClock.Configuration(
                servers: [ServerName(host: server.host, port: server.port)],
                query: QueryOptions(samples: 4, interval: .zero, timeout: .seconds(2))),
            monotonic: machine.clock, wall: machine.wallClock,
            kernel: KernelClockReader.fixed(ScriptedKernel.unsynchronized), timeBase: machine.clock)

        for index in 0..<4 {
            if index > 0 { machine.advance(by: .seconds(60)) }
            let report = try await clock.sync()
            #expect(report.servers.first?.status == .selected)
            let estimate = try #require(clock.now())
            #expect(estimate.contains(serverTime()), "sync \(index): outside")
        }
        let frequency = clock.clock.frequency()
        // True (server) time passes 1 + 60e-6 times as fast as our oscillator counts: a frequency
        // error of exactly −60 ppm (true = awake × (1 − f)).
        let expected = -60.0
        #expect(frequency.isMeasured && frequency.syncCount == 4)
        #expect(frequency.lowerPPM <= expected && expected <= frequency.upperPPM)
        #expect(abs(frequency.ppm - expected) < 0.01)

        let synced = try #require(clock.now())
        var worstError = Duration.zero
        for _ in 1...120 {
            machine.advance(by: .seconds(1))
            let estimate = try #require(clock.now())
            let truth = serverTime()
            #expect(estimate.contains(truth), "outside at \(estimate.age): \(estimate.time - truth)")
            worstError = max(worstError, abs(estimate.time - truth))
        }
        let offline = try #require(clock.now())
        let growth = offline.errorBound - synced.errorBound
        print(
            "holdover loopback: measured \(frequency.ppm) ppm (\(frequency.lowerPPM)…\(frequency.upperPPM)),",
            "bound \(synced.errorBound) at the last sync, \(offline.errorBound) after 120 s offline",
            "(+\(growth), \(growth.secondsDouble / 120 * 1e6) ppm of it), worst error \(worstError)")
        // At most 10 ppm of the two minutes offline (it was 500 ppm).
        #expect(growth <= .seconds(120) * 10e-6)
        // Corrected: within a few microseconds, where the uncorrected estimate would be 7.2 ms off.
        #expect(worstError < .microseconds(20))
    }
}
