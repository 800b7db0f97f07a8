import LoopbackServers
import NetClockPlatform
import Roughtime
import SNTP
import Testing
import TimeValues

/// The exchange core on simulated time and datagrams: what it sends and when it wakes, bad
/// datagrams refused without ending the wait, retransmissions, the deadline, cancellation.
@Suite struct RoughtimeExchangeTests {
    static let start = MonotonicInstant(sinceOrigin: .seconds(500))

    struct Setup {
        var configuration: FakeRoughtimeServer.Configuration
        var request: RoughtimeRequest
        var exchange: RoughtimeExchange
        var reply: [UInt8]

        init(timing: RoughtimeExchange.Timing = .init()) throws {
            configuration = try TestSupport.configuration()
            request = try TestSupport.request(publicKey: configuration.publicKey)
            exchange = RoughtimeExchange(request: request, publicKey: configuration.publicKey, timing: timing)
            reply = try TestSupport.reply(to: request, at: TestSupport.now, configuration: configuration)
        }
    }

    @Test func startSendsTheRequestAndWakesAtTheFirstRetransmission() throws {
        var setup = try Setup()
        let step = setup.exchange.start(at: Self.start)
        #expect(step.send == [setup.request.bytes])
        #expect(step.wake == Self.start + .seconds(1))
        #expect(setup.exchange.outcome == nil)
    }

    @Test func aValidReplyFinishesWithTheRoundTripFromTheFirstTransmission() throws {
        var setup = try Setup()
        _ = setup.exchange.start(at: Self.start)
        _ = setup.exchange.handleTimer(at: Self.start + .seconds(1))  // retransmitted
        let step = setup.exchange.handle(setup.reply, at: Self.start + .milliseconds(1250))
        #expect(step == .finished)
        let outcome = try #require(setup.exchange.outcome)
        let measurement = try outcome.result.get()
        #expect(measurement.sentAt == Self.start)
        #expect(measurement.roundTrip == .milliseconds(1250))
        #expect(measurement.response.midpoint == TestSupport.now)
        #expect(outcome.transmissions == 2)
        #expect(outcome.rejections.count == 0)
    }

    @Test func badDatagramsAreRefusedWithTheirReasonAndTheWaitGoesOn() throws {
        var setup = try Setup()
        _ = setup.exchange.start(at: Self.start)
        let bad: [[UInt8]] = [
            [1, 2, 3],
            Array(setup.reply.dropLast(4)),
            setup.reply.enumerated().map {
                $0.offset == setup.reply.count - 100 ? $0.element ^ 1 : $0.element
            },
        ]
        for datagram in bad {
            let step = setup.exchange.handle(datagram, at: Self.start + .milliseconds(10))
            #expect(step.send.isEmpty)
            #expect(step.wake == Self.start + .seconds(1), "the wake-up does not move")
        }
        #expect(setup.exchange.outcome == nil)
        #expect(setup.exchange.rejections.count == 3)
        #expect(
            setup.exchange.rejections.first.map(\.code) == [
                .badFraming, .framingLengthMismatch, .badDelegationSignature,
            ])
        _ = setup.exchange.handle(setup.reply, at: Self.start + .milliseconds(20))
        let outcome = try #require(setup.exchange.outcome)
        #expect((try? outcome.result.get()) != nil)
        #expect(outcome.rejections.count == 3)
    }

    @Test func rejectionsAreCountedAndTheFirstFewKept() throws {
        var setup = try Setup()
        _ = setup.exchange.start(at: Self.start)
        for index in 0..<100 {
            _ = setup.exchange.handle([UInt8(index)], at: Self.start + .milliseconds(Int64(index)))
        }
        #expect(setup.exchange.rejections.count == 100)
        #expect(setup.exchange.rejections.first.count == RoughtimeRejections.kept)
    }

    @Test func retransmissionsBackOffByHalfAndTheDeadlineEndsTheExchange() throws {
        var setup = try Setup(timing: .init(timeout: .seconds(5)))
        var step = setup.exchange.start(at: Self.start)
        var sends: [Duration] = [.zero]
        while let wake = step.wake {
            step = setup.exchange.handleTimer(at: wake)
            if !step.send.isEmpty { sends.append(wake - Self.start) }
            #expect(step.send.allSatisfy { $0 == setup.request.bytes }, "the same request, the same nonce")
        }
        // 0, 1, 1 + 1.5, 2.5 + 2.25; the next (4.75 + 3.375) is past the 5 s deadline.
        #expect(sends == [.zero, .seconds(1), .milliseconds(2500), .milliseconds(4750)])
        let outcome = try #require(setup.exchange.outcome)
        #expect(outcome.transmissions == 4)
        #expect(throws: RoughtimeError(.timedOut, "")) { try outcome.result.get() }
    }

    @Test func withoutRetransmissionsTheOnlyWakeIsTheDeadline() throws {
        var setup = try Setup(timing: .init(timeout: .seconds(2), firstRetransmission: nil))
        let step = setup.exchange.start(at: Self.start)
        #expect(step.wake == Self.start + .seconds(2))
        #expect(setup.exchange.handleTimer(at: Self.start + .seconds(2)) == .finished)
        #expect(setup.exchange.outcome?.transmissions == 1)
    }

    @Test func aDeadlineAfterRefusedRepliesGivesTheFirstReason() throws {
        var setup = try Setup(timing: .init(timeout: .seconds(1), firstRetransmission: nil))
        _ = setup.exchange.start(at: Self.start)
        _ = setup.exchange.handle(Array(setup.reply.dropLast(4)), at: Self.start + .milliseconds(5))
        _ = setup.exchange.handle([0], at: Self.start + .milliseconds(6))
        _ = setup.exchange.handleTimer(at: Self.start + .seconds(1))
        let outcome = try #require(setup.exchange.outcome)
        #expect(throws: RoughtimeError(.framingLengthMismatch, "")) { try outcome.result.get() }
        #expect(outcome.rejections.count == 2)
    }

    @Test func anEarlyTimerOnlyReschedules() throws {
        var setup = try Setup()
        _ = setup.exchange.start(at: Self.start)
        let step = setup.exchange.handleTimer(at: Self.start + .milliseconds(300))
        #expect(step.send.isEmpty)
        #expect(step.wake == Self.start + .seconds(1))
        #expect(setup.exchange.outcome == nil)
    }

    @Test func aTransportFailureOrACancelFinishes() throws {
        var refused = try Setup()
        _ = refused.exchange.start(at: Self.start)
        let address = SocketAddress.loopback(.ipv4, port: 9)
        #expect(
            refused.exchange.handle(failure: .connectionRefused(address: address), at: Self.start)
                == .finished)
        #expect(throws: RoughtimeError(.transport, "")) { try refused.exchange.outcome?.result.get() }

        var cancelled = try Setup()
        _ = cancelled.exchange.start(at: Self.start)
        cancelled.exchange.cancel(at: Self.start + .milliseconds(1))
        #expect(throws: RoughtimeError(.cancelled, "")) { try cancelled.exchange.outcome?.result.get() }
        // Nothing after the end changes it.
        #expect(cancelled.exchange.handle(cancelled.reply, at: Self.start + .milliseconds(2)) == .finished)
        #expect(throws: RoughtimeError(.cancelled, "")) { try cancelled.exchange.outcome?.result.get() }
    }
}
