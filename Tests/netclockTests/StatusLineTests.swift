import NetClockPlatform
import SNTP
import Synchronization
import Testing
import TimeValues

@testable import NetclockCLI
@testable import NetworkClock

/// The live status line's logic, driven by hand-made times and events: no terminal, no clock.
@Suite struct StatusLineTests {
    static let clear = "\r\u{1B}[2K"

    @Test func nothingIsDrawnInTheFirstHalfSecond() {
        var line = StatusLine()
        #expect(line.frame("a", at: .zero) == nil)
        #expect(line.frame("a", at: .milliseconds(499)) == nil)
        #expect(line.erase() == nil, "a quick round writes nothing at all")
        #expect(line.frame("a", at: .milliseconds(500)) == Self.clear + "a")
    }

    @Test func framesComeAtMostTenTimesASecondAndOnlyWhenTheTextChanges() {
        var line = StatusLine()
        var frames: [String] = []
        // A tick every 10 ms for 2 s, the text changing every tick: at most one frame per 100 ms.
        for tick in 0...200 {
            if let bytes = line.frame("text \(tick)", at: .milliseconds(10 * tick)) { frames.append(bytes) }
        }
        #expect(frames.count == 16, "0.5 s to 2.0 s, one every 100 ms")
        #expect(frames.allSatisfy { $0.hasPrefix(Self.clear) }, "each frame redraws in place")
        // The same text is not drawn again, however much time passes.
        var still = StatusLine()
        #expect(still.frame("same", at: .seconds(1)) != nil)
        #expect(still.frame("same", at: .seconds(2)) == nil)
        #expect(still.frame("other", at: .seconds(3)) == Self.clear + "other")
    }

    @Test func eraseLeavesTheLineEmptyOnce() {
        var line = StatusLine()
        _ = line.frame("querying", at: .seconds(1))
        #expect(line.erase() == Self.clear)
        #expect(line.erase() == nil)
        #expect(line.shown == nil)
    }

    @Test func textIsCutToTheTerminalWidth() {
        var line = StatusLine()
        line.width = 10
        #expect(line.frame(String(repeating: "x", count: 40), at: .seconds(1)) == Self.clear + "xxxxxxxxx")
    }

    @Test func countsNameAddressesPacketsAndOutcomes() {
        let address = SocketAddress(ipv4: (127, 0, 0, 1), port: 123)
        var counts = ProgressCounts()
        #expect(counts.text(elapsed: .milliseconds(600)) == "resolving servers… (0.6s)")
        counts.apply(.querying(addresses: 3))
        for _ in 0..<7 { counts.apply(.sent(address)) }
        for _ in 0..<5 { counts.apply(.answered(address)) }
        counts.apply(.timedOut(address))
        #expect(
            counts.text(elapsed: .milliseconds(1250))
                == "querying 3 addresses: 7 sent, 5 answered, 1 timed out… (1.2s)")
        counts.apply(.rejected(address))
        counts.apply(.failed(address))
        counts.apply(.httpStarted(url: "http://127.0.0.1:1/"))
        #expect(
            counts.text(elapsed: .seconds(2))
                == "querying 3 addresses: 7 sent, 5 answered, 1 rejected, 1 timed out, 1 failed; HTTP 1 URL: 0 done… (2.0s)"
        )
        var single = ProgressCounts()
        single.apply(.querying(addresses: 1))
        #expect(single.text(elapsed: .zero) == "querying 1 address: 0 sent, 0 answered… (0.0s)")
    }

    @Test func exchangeRecordsBecomeEvents() {
        let address = JSONContractFixture.address
        let events = JSONContractFixture.selected.ntp?.query?.exchanges.flatMap {
            SyncProgress.events(for: $0, address: address)
        }
        #expect(events == [.rejected(address), .answered(address), .timedOut(address)])
    }

    @Test func aFinishedRoundIgnoresLateEventsAndTicks() {
        let written = Mutex<[String]>([])
        var line = StatusLine()
        line.delay = .zero
        let progress = LiveProgress(line: line) { bytes in written.withLock { $0.append(bytes) } }
        progress.observe(.querying(addresses: 1))
        progress.tick()
        progress.finish()
        progress.observe(.sent(JSONContractFixture.address))
        progress.tick()
        let writes = written.withLock { $0 }
        #expect(writes.count == 2)
        #expect(writes.first?.hasPrefix(Self.clear + "querying 1 address: 0 sent, 0 answered") == true)
        #expect(writes.last == Self.clear, "the last thing written erases the line")
    }

    @Test func aQuickRoundWritesNothing() async {
        let written = Mutex<[String]>([])
        let value = await LiveProgress.around(writingTo: { bytes in written.withLock { $0.append(bytes) } }) {
            observer in
            observer?(.querying(addresses: 1))
            return 42
        }
        #expect(value == 42)
        #expect(written.withLock { $0 }.isEmpty)
    }
}
