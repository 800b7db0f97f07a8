import Roughtime
import SNTP
import Testing
import TimeValues

/// Measurement sequences: chained nonces, the order check that catches a liar, malfeasance reports
/// (written, read back and checked as a third party would), and the majority that names the liar.
@Suite struct RoughtimeChainTests {
    @Test func noncesChainFromThePreviousReply() throws {
        var simulated = try SimulatedChain(offsets: [.zero, .zero, .zero])
        for index in 0..<3 { try simulated.ask(index) }
        let links = simulated.chain.links
        #expect(links[0].rand == links[0].measurement.request.nonce, "the first nonce is its own rand")
        for index in 1..<links.count {
            let expected = try RoughtimeMerkle.sha512(
                links[index - 1].measurement.response.bytes, links[index].rand, length: 32)
            #expect(links[index].measurement.request.nonce == expected)
            #expect(links[index].rand.count == 32)
        }
        #expect(simulated.chain.violations.isEmpty)
        #expect(simulated.chain.malfeasanceReport == nil)
    }

    @Test("a liar an hour ahead is caught only when a later reply follows its own", arguments: [1, 2])
    func liarAhead(passes: Int) throws {
        // The liar is asked last: in one pass nothing follows its reply.
        var simulated = try SimulatedChain(offsets: [.zero, .zero, .seconds(3600)])
        for _ in 0..<passes { for index in 0..<3 { try simulated.ask(index) } }
        let violations = simulated.chain.violations
        if passes == 1 {
            #expect(violations.isEmpty)
        } else {
            // Link 2 (the liar, pass 1) against links 3 and 4 (the honest servers, pass 2).
            #expect(violations.map(\.earlier) == [2, 2])
            #expect(violations.map(\.later) == [3, 4])
            let report = try #require(simulated.chain.malfeasanceReport)
            #expect(report.entries.count == 6)
            #expect(try report.contradictions().count == 2)
        }
    }

    @Test func aLiarBehindIsCaughtInOnePass() throws {
        var simulated = try SimulatedChain(offsets: [.seconds(-3600), .zero, .zero])
        for index in 0..<3 { try simulated.ask(index) }
        #expect(simulated.chain.violations.isEmpty, "a reply signed too early cannot contradict later ones")
        var behindLast = try SimulatedChain(offsets: [.zero, .zero, .seconds(-3600)])
        for index in 0..<3 { try behindLast.ask(index) }
        #expect(behindLast.chain.violations.map(\.later) == [2, 2])
    }

    @Test func theReportReadsBackInBothFormsAndChecksOut() throws {
        var simulated = try SimulatedChain(offsets: [.zero, .seconds(-7200)])
        try simulated.ask(0)
        try simulated.ask(1)
        let report = try #require(simulated.chain.malfeasanceReport)
        for json in [report.rfcJSON, report.listJSON] {
            let read = try RoughtimeMalfeasanceReport(json: Array(json.utf8))
            #expect(read == report)
            #expect(try read.contradictions().map(\.earlier) == [0])
        }
        #expect(report.rfcJSON.hasPrefix("{"))
        #expect(report.rfcJSON.contains("\"responses\""))
        #expect(report.listJSON.hasPrefix("["))
        for key in ["rand", "publicKey", "request", "response"] {
            #expect(report.listJSON.contains("\"\(key)\""))
        }
    }

    @Test func aTamperedReportIsRefused() throws {
        var simulated = try SimulatedChain(offsets: [.zero, .seconds(-7200)])
        try simulated.ask(0)
        try simulated.ask(1)
        let report = try #require(simulated.chain.malfeasanceReport)
        var badRand = report
        badRand.entries[1].rand[0] ^= 1
        #expect(throws: RoughtimeError(.invalidReport, "")) { try badRand.contradictions() }
        var badKey = report
        badKey.entries[0].publicKey = badKey.entries[1].publicKey
        #expect(throws: RoughtimeError(.invalidReport, "")) { try badKey.contradictions() }
        var reordered = report
        reordered.entries.swapAt(0, 1)
        #expect(throws: RoughtimeError(.invalidReport, "")) { try reordered.contradictions() }
        #expect(throws: RoughtimeError(.invalidReport, "")) {
            try RoughtimeMalfeasanceReport(entries: []).contradictions()
        }
        #expect(throws: RoughtimeError(.invalidReport, "")) {
            try RoughtimeMalfeasanceReport(json: Array("{}".utf8))
        }
        #expect(throws: RoughtimeError(.invalidReport, "")) {
            try RoughtimeMalfeasanceReport(json: Array("[{\"rand\": \"!\"}]".utf8))
        }
    }

    @Test func anHonestChainIsAValidReportThatProvesNothing() throws {
        var simulated = try SimulatedChain(offsets: [.zero, .zero])
        try simulated.ask(0)
        try simulated.ask(1)
        #expect(try RoughtimeMalfeasanceReport(simulated.chain).contradictions().isEmpty)
    }
}

/// Selecting the time a majority agrees on.
@Suite struct RoughtimeAgreementTests {
    static let reference = MonotonicInstant(sinceOrigin: .seconds(10))
    static let wall = UnixTime(seconds: 1_000_000)

    static func interval(_ offset: Int64, radius: Int64 = 3) -> TrueTimeInterval {
        TrueTimeInterval(
            earliest: wall + .seconds(offset - radius), latest: wall + .seconds(offset + radius),
            instant: reference)
    }

    @Test func twoHonestAndALiar() throws {
        let agreement = try RoughtimeAgreement.select(
            [0: Self.interval(0), 1: Self.interval(1), 2: Self.interval(3600)], wall: Self.wall,
            reference: Self.reference, minimumAgreeing: 1)
        #expect(agreement.agreeing == [0, 1])
        #expect(agreement.falsetickers == [2])
        #expect(agreement.valid == 3)
        // Both honest intervals contain the agreed one's ends: [−2 s, +3 s].
        #expect(agreement.offsets.lowerBound == .seconds(-2))
        #expect(agreement.offsets.upperBound == .seconds(3))
        #expect(agreement.interval.earliest == Self.wall - .seconds(2))
    }

    @Test func oneAgainstOneIsNoMajority() {
        #expect(throws: RoughtimeError(.noMajority, "")) {
            try RoughtimeAgreement.select(
                [0: Self.interval(0), 1: Self.interval(3600)], wall: Self.wall, reference: Self.reference,
                minimumAgreeing: 1)
        }
    }

    @Test func tooFewReplies() {
        #expect(throws: RoughtimeError(.notEnoughReplies, "")) {
            try RoughtimeAgreement.select([:], wall: Self.wall, reference: Self.reference, minimumAgreeing: 1)
        }
        #expect(throws: RoughtimeError(.notEnoughReplies, "")) {
            try RoughtimeAgreement.select(
                [0: Self.interval(0), 1: Self.interval(1), 2: Self.interval(3600)], wall: Self.wall,
                reference: Self.reference, minimumAgreeing: 3)
        }
    }

    @Test func oneServerIsTrustedAlone() throws {
        let agreement = try RoughtimeAgreement.select(
            [4: Self.interval(7)], wall: Self.wall, reference: Self.reference, minimumAgreeing: 1)
        #expect(agreement.agreeing == [4])
        #expect(agreement.interval.midpoint - agreement.wall == .seconds(7))
        #expect(agreement.interval.radius == .seconds(3))
    }
}
