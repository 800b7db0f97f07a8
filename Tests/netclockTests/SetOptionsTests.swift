import NetworkClock
import Testing

@testable import NetclockCLI

/// `set`'s options: parsed into the policy, refused by the other commands, usage errors (exit 2)
/// before any traffic.
struct SetOptionsTests {
    static let set: QueryCommandOptions.Extras = [.query, .state, .set]

    @Test func defaultsAreAutomaticHalfASecondAndNtpdsPanicThreshold() throws {
        let options = try QueryCommandOptions.parse(["--nts", "time.example.com"], accepting: Self.set)
        #expect(options.systemClock == NetworkClock.SystemClockPolicy())
        #expect(options.systemClock.method == .automatic)
        #expect(options.systemClock.stepThreshold == .milliseconds(500))
        #expect(options.systemClock.maximumUnauthenticatedCorrection == .seconds(1000))
        #expect(!options.systemClock.overridesOtherDisciplines && !options.dryRun)
    }

    @Test func everyOptionReachesThePolicy() throws {
        let options = try QueryCommandOptions.parse(
            ["--step", "--step-threshold", "0.125", "--max-step", "2000000000", "--dry-run", "--force"],
            accepting: Self.set)
        #expect(options.systemClock.method == .step)
        #expect(options.systemClock.stepThreshold == .milliseconds(125))
        #expect(options.systemClock.maximumUnauthenticatedCorrection == .seconds(2_000_000_000))
        #expect(options.dryRun && options.systemClock.overridesOtherDisciplines)
        #expect(
            try QueryCommandOptions.parse(["--slew", "--slew"], accepting: Self.set).systemClock.method
                == .slew)
    }

    @Test func mistakesAreUsageErrors() {
        for bad in [
            ["--step", "--slew"], ["--max-step", "-1"], ["--max-step", "nan"], ["--max-step"],
            ["--step-threshold", "x"], ["--max-step", "1e11"],
        ] {
            #expect(throws: UsageError.self, "\(bad)") {
                try QueryCommandOptions.parse(bad, accepting: Self.set)
            }
        }
        // Only `set` takes them.
        for option in ["--step", "--slew", "--dry-run", "--force"] {
            #expect(throws: UsageError.self, "\(option)") {
                try QueryCommandOptions.parse([option], accepting: [.query, .state])
            }
        }
    }

    @Test func aUsageErrorExitsTwoBeforeAnyTraffic() async {
        // In-process, so `--dry-run` as well: were the usage check ever to let it through, the
        // test process must still not reach the kernel's clock calls.
        let status = await Netclock.run(
            ["set", "--step", "--slew", "--dry-run", "127.0.0.1:9"],
            console: Console(out: { _ in }, err: { _ in }))
        #expect(status == ExitStatus.usage.rawValue)
    }
}
