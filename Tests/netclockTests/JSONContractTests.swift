import Foundation
import NetClockPlatform
import SNTP
import Testing
import TimeValues

@testable import NetclockCLI
@testable import NetworkClock
@testable import SNTP

/// Pins the `--json` contract (the CLIReference article) on a fixed sync: every key, the kind of
/// every value (number, string, null, array, object), null versus absent, seconds as numbers, and
/// the digits numbers are written with.
@Suite struct JSONContractTests {
    typealias Fixture = JSONContractFixture

    static func decode(_ line: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "not an object: \(line)")
    }

    /// The sample's bound as decoded (see ``sampleInterval``: a 17-digit number may read back one
    /// ulp away on Linux).
    static let sampleBound: JSONExpectation = {
        let text = "[\(Fixture.sample.errorBound.secondsDouble)]"
        let values = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Double]
        return .number(values?.first ?? Fixture.sample.errorBound.secondsDouble)
    }()

    /// One sample's `interval`, θ ± ε in seconds, as the text writes it (pinned in
    /// ``textFormatIsStable()``).
    static let sampleIntervalText: String = {
        let lower = (Fixture.sample.offset - Fixture.sample.errorBound).secondsDouble
        let upper = (Fixture.sample.offset + Fixture.sample.errorBound).secondsDouble
        return "[\(lower),\(upper)]"
    }()

    /// The same as decoded: Foundation's `JSONSerialization` on Linux can read a 17-digit number one
    /// ulp away from the `Double` it was printed from, so the expectation is read the same way.
    static let sampleInterval: JSONExpectation = {
        let values = (try? JSONSerialization.jsonObject(with: Data(sampleIntervalText.utf8))) as? [Double]
        return .array((values ?? []).map { .number($0) })
    }()

    static let selectedSource: JSONExpectation = [
        "authenticated": false, "host": "127.0.0.1:11123", "address": "127.0.0.1:11123", "status": "selected",
        "reason": nil,
        "stratum": 2, "leap": "none", "refid": "127.127.1.1", "offset": 1.4998779296875,
        "delay": 0.000732421875,
        "error_bound": sampleBound, "root_delay": 0.03125, "root_dispersion": 0.000244140625,
        "precision": -20,
        "jitter": 0, "estimate": "min-delay", "interval": sampleInterval, "rejected_replies": 1,
        "samples": [
            [
                "t1": 1_796_040_000.5, "t2_ntp": "eeb7e3c1.40000000", "t3_ntp": "eeb7e3c1.c0000000",
                "t4": 1_796_040_000.75, "accepted": false, "reason": "origin_mismatch",
                "detail": .string(RejectionReason.originMismatch.description),
            ],
            [
                "t1": 1_796_040_000.5, "t2": 1_796_040_002.000244140625, "t3": 1_796_040_002.00048828125,
                "t4": 1_796_040_000.5009765625, "t1_ntp": "eeb7e3c0.80000000", "t2_ntp": "eeb7e3c2.00100000",
                "t3_ntp": "eeb7e3c2.00200000", "t4_ntp": "eeb7e3c0.80400000", "offset": 1.4998779296875,
                "delay": 0.000732421875, "error_bound": sampleBound, "accepted": true, "reason": nil,
            ],
            [
                "t1": 1_796_040_001.5, "accepted": false, "reason": "timeout",
                "detail": "no valid reply before the timeout",
            ],
        ],
    ]

    static let silentSource: JSONExpectation = [
        "authenticated": false, "host": "127.0.0.1:11124", "address": "127.0.0.1:11124", "status": "timeout",
        "reason": "no reply (timed out)", "stratum": nil, "leap": nil, "refid": nil, "offset": nil,
        "delay": nil, "rejected_replies": 0,
        "samples": [
            [
                "t1": 1_796_040_000.5, "accepted": false, "reason": "timeout",
                "detail": "no valid reply before the timeout",
            ],
            [
                "t1": 1_796_040_001.5, "accepted": false, "reason": "negative_delay",
                "detail": .string(RejectionReason.negativeDelay(.milliseconds(-1)).description),
            ],
            [
                "t1": 1_796_040_002.5, "accepted": false, "reason": "refused",
                "detail": "ICMP port unreachable",
            ],
            [
                "t1": 1_796_040_003.5, "accepted": false, "reason": "error",
                "detail": .string(
                    TransportError.systemCall(operation: "send", errno: .notPermitted, reason: "EPERM")
                        .description),
            ],
        ],
    ]

    static let kissedSource: JSONExpectation = [
        "authenticated": false, "host": "127.0.0.1:11125", "address": "127.0.0.1:11125", "status": "kod",
        "reason": "Kiss-o'-Death DENY",
        "stratum": nil, "leap": nil, "refid": nil, "offset": nil, "delay": nil, "kiss_code": "DENY",
        "rejected_replies": 0,
        "samples": [
            [
                "t1": 1_796_040_000.5, "accepted": false, "reason": "kiss_of_death",
                "detail": .string(RejectionReason.kissOfDeath(.deny).description),
            ]
        ],
    ]

    static let unresolvedSource: JSONExpectation = [
        "authenticated": false, "host": "nowhere.invalid", "address": nil, "status": "error",
        "reason": "cannot resolve",
        "stratum": nil,
        "leap": nil, "refid": nil, "offset": nil, "delay": nil, "samples": [], "rejected_replies": 0,
    ]

    static let httpMeasured: JSONExpectation = [
        "url": "http://127.0.0.1:18080/a/b?x=1", "status": "selected", "reason": nil, "error_code": nil,
        "kind": "date", "offset": 0.005, "error_bound": 0.008,
        "certificate_time": nil,
        "requests": [
            [
                "method": "HEAD", "status": 200, "sent": 0, "round_trip": 0.000041, "header": "Date",
                "value": "Mon, 30 Nov 2026 12:00:00 GMT", "interval": [-0.5, 0.5],
                "combined": .array([.number(Duration.milliseconds(-3).secondsDouble), 0.013]),
            ],
            [
                "method": "GET", "status": nil, "sent": 0.25, "round_trip": 0.5, "header": nil, "value": nil,
                "interval": nil, "combined": nil,
            ],
        ],
    ]

    static let httpFailed: JSONExpectation = [
        "url": "http://127.0.0.1:18081/", "status": "error", "reason": "transport: connection refused",
        "error_code": "transport", "kind": nil, "offset": nil, "error_bound": nil, "requests": [],
        "certificate_time": nil,
    ]

    static let report: JSONExpectation = [
        "offset": 1.4998779296875, "delay": 0.000732421875, "error_bound": 0.000125,
        "time": "2026-11-30T12:00:00.250000Z", "unix": 1_796_040_000.25, "source": "ntp",
        "server": "127.0.0.1:11123", "elapsed": 0.012, "packets_sent": 7, "authenticated": false,
        "downgrade": nil, "certificate_time": nil, "certificate_warnings": [],
        "servers": [selectedSource, silentSource, kissedSource, unresolvedSource], "http": [httpMeasured],
        // No source announced anything and no table: the end of the fixture's month is unknown.
        "leap": [
            "kind": "unknown", "at": "2026-12-01T00:00:00Z", "mode": "step", "disagreeing": [],
            "table_note": nil,
        ],
    ]

    @Test func successObjectHasEveryKeyAndValue() throws {
        let json = try Self.decode(JSONOutput.line(SyncReportJSON(Fixture.report)))
        let mismatches = Self.report.mismatches(json)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// The `frequency` object of `now` and `sync` for ``Fixture/frequency``.
    static let frequency: JSONExpectation = [
        "ppm": .number(Fixture.frequency.ppm),
        "interval_ppm": [.number(Fixture.frequency.lowerPPM), .number(Fixture.frequency.upperPPM)],
        "growth_ppm": .number(Fixture.frequency.growthRatePPM), "measured": true, "carried": false,
        "syncs": 4,
        "span": 180, "age": 2, "resets": 1, "last_reset": "frequency_changed",
    ]

    @Test func syncAddsStateAnchorReplacedAndFrequency() throws {
        let line = JSONOutput.line(
            SyncReportJSON(
                Fixture.report, state: "/tmp/a/anchor.json", anchorReplaced: false,
                frequency: Fixture.frequency))
        guard case .object(var expected) = Self.report else { return }
        expected["state"] = "/tmp/a/anchor.json"
        expected["skipped"] = false
        expected["anchor_replaced"] = false
        expected["frequency"] = Self.frequency
        expected["frequency_reset"] = .null
        let mismatches = JSONExpectation.object(expected).mismatches(try Self.decode(line))
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        // A sync that reset the history names why.
        let reset = ClockEvent.FrequencyReset(
            code: "discontinuity", previousPPM: -60, previousIntervalPPM: -61...(-59))
        let resetLine = try Self.decode(
            JSONOutput.line(
                SyncReportJSON(
                    Fixture.report, state: "/s", anchorReplaced: true, frequency: Fixture.frequency,
                    frequencyReset: reset)))
        #expect(resetLine["frequency_reset"] as? String == "discontinuity")
        #expect(Fixture.frequency.lowerPPM < -62.49 && Fixture.frequency.upperPPM > -57.51)
    }

    /// A sync whose unauthenticated evidence met a held authenticated anchor (issue 40): the top
    /// level is the anchor's trusted time (authenticated, `anchor_update` `kept_authenticated`), and
    /// the source that lay wholly outside it keeps its own measurement with the status
    /// `contradicts_authenticated`.
    @Test func syncWhereTheHeldAnchorOutranksTheEvidence() throws {
        var held = Fixture.report
        let local = held.trueTime - held.offset
        held.trueTime = local + .milliseconds(2)
        held.offset = .milliseconds(2)
        held.errorBound = .microseconds(625)
        held.isAuthenticated = true
        held.anchorUpdate = .keptAuthenticated
        held.servers[0].status = .contradictsAuthenticated
        held.servers[0].reason = "outside the held authenticated time"
        let line = JSONOutput.line(
            SyncReportJSON(
                held, state: "/s", anchorReplaced: false, anchorUpdate: .keptAuthenticated,
                frequency: Fixture.frequency))
        guard case .object(var expected) = Self.report, case .object(var source) = Self.selectedSource else {
            return
        }
        source["status"] = "contradicts_authenticated"
        source["reason"] = "outside the held authenticated time"
        expected["servers"] = [.object(source), Self.silentSource, Self.kissedSource, Self.unresolvedSource]
        expected["offset"] = 0.002
        expected["error_bound"] = 0.000625
        // The fixture's local clock reads 11:59:58.750122…; the anchor says 2 ms later.
        expected["time"] = "2026-11-30T11:59:58.752122Z"
        expected["unix"] = .number(held.trueTime.secondsDouble)
        expected["authenticated"] = true
        expected["state"] = "/s"
        expected["skipped"] = false
        expected["anchor_replaced"] = false
        expected["anchor_update"] = "kept_authenticated"
        expected["frequency"] = Self.frequency
        expected["frequency_reset"] = .null
        let mismatches = JSONExpectation.object(expected).mismatches(try Self.decode(line))
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        let text = ReportText.report(held)
        #expect(
            text.hasSuffix(
                "(the held authenticated anchor; this sync's unauthenticated time only checked against it)"))
        #expect(text.contains("contradicts authenticated time: 127.0.0.1:11123 (left out:"), "\(text)")
    }

    @Test func failureObjectHasEveryKeyAndValue() throws {
        let json = try Self.decode(JSONOutput.line(SyncFailureJSON(Fixture.failure)))
        let expected: JSONExpectation = [
            "error": .string(Fixture.failure.description), "authenticated": false, "downgrade": nil,
            "certificate_time": nil,
            "servers": [Self.silentSource, Self.kissedSource, Self.unresolvedSource],
            "http": [Self.httpFailed],
        ]
        let mismatches = expected.mismatches(json)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test func nowObjectHasEveryKeyAndValue() throws {
        let json = try Self.decode(
            JSONOutput.line(
                NowJSON(
                    Fixture.comparison, systemClock: Fixture.kernel,
                    frequency: Fixture.frequency)))
        var expected: [String: JSONExpectation] = [
            "time": "2026-11-30T12:00:00.250000Z", "unix": 1_796_040_000.25, "error_bound": 0.000125,
            "age": 2,
            "source": "restored", "server": "127.0.0.1:11123", "offset": 1.5, "drift_corrected": true,
            "authenticated": false, "frequency": Self.frequency,
            // The fixture's estimate is built without a leap report: none, at the epoch.
            "leap": ["kind": "none", "at": "1970-01-01T00:00:00Z", "mode": "step"],
            "system_clock": [
                "synchronized": true, "maximum_error": 0.0625, "estimated_error": 0.000125,
                "offset_to_slew": 0.0005, "frequency_ppm": -12.5, "tick": 0.01, "state": "ok",
                "status": ["pll", "nano"],
            ],
        ]
        let mismatches = JSONExpectation.object(expected).mismatches(json)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")

        // Where the kernel's state cannot be read, the key stays, with null.
        let unknown = try Self.decode(
            JSONOutput.line(
                NowJSON(Fixture.comparison, systemClock: nil, frequency: Fixture.frequency))
        )
        expected["system_clock"] = .null
        let nullMismatches = JSONExpectation.object(expected).mismatches(unknown)
        #expect(nullMismatches.isEmpty, "\(nullMismatches.joined(separator: "\n"))")
    }

    /// A reading of the system clock whose wall read came late (its bracket 2 ms wide): `error_bound`
    /// covers the offset too, so it is the time's bound plus half the bracket; `offset` keeps its
    /// meaning (true time − system clock at the reading).
    @Test func nowErrorBoundCoversTheReadingsOwnUncertainty() throws {
        var comparison = Fixture.comparison
        comparison = NetworkClock.SystemClockOffset(
            trustedTime: comparison.trustedTime,
            reading: NetworkClock.SystemClockReading(
                wall: Fixture.wall, monotonic: comparison.reading.monotonic, uncertainty: .milliseconds(1)))
        let json = try Self.decode(JSONOutput.line(NowJSON(comparison, systemClock: nil)))
        #expect(json["error_bound"] as? Double == 0.001125, "\(json)")
        #expect(json["offset"] as? Double == 1.5, "\(json)")
    }

    /// An unsynchronised kernel (the state at boot, and on this CI machine): `synchronized` false,
    /// the `unsync` flag, the `error` state.
    @Test func nowSystemClockUnsynchronized() throws {
        let state = KernelClockState(
            clockState: 5, status: [.unsynchronized], offset: .zero, frequencyPPM: 0,
            maximumError: .seconds(16), estimatedError: .seconds(16))
        let json = try Self.decode(
            JSONOutput.line(NowJSON(Fixture.comparison, systemClock: state)))
        let expected: JSONExpectation = [
            "synchronized": false, "maximum_error": 16, "estimated_error": 16, "offset_to_slew": 0,
            "frequency_ppm": 0, "tick": 0.01, "state": "error", "status": ["unsync"],
        ]
        let mismatches = expected.mismatches(json["system_clock"])
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// A removed or renamed field fails here even if the value tests above are edited with it.
    @Test func goldenKeys() throws {
        let report = try Self.decode(JSONOutput.line(SyncReportJSON(Fixture.report)))
        #expect(
            report.keys.sorted() == [
                "authenticated", "certificate_time", "certificate_warnings", "delay", "downgrade", "elapsed",
                "error_bound", "http", "leap", "offset", "packets_sent",
                "server", "servers",
                "source",
                "time", "unix",
            ])
        let servers = try #require(report["servers"] as? [[String: Any]])
        #expect(
            servers[0].keys.sorted() == [
                "address", "authenticated", "delay", "error_bound", "estimate", "host", "interval", "jitter",
                "leap", "offset",
                "precision", "reason", "refid", "rejected_replies",
                "root_delay", "root_dispersion", "samples", "status", "stratum",
            ])
        #expect(servers[0]["rejected_replies"] as? Int == 1, "the fixture's one spoofed reply")
        let noSample = [
            "address", "authenticated", "delay", "host", "leap", "offset", "reason", "refid",
            "rejected_replies", "samples", "status", "stratum",
        ]
        #expect(servers[1].keys.sorted() == noSample)
        #expect(servers[2].keys.sorted() == (noSample + ["kiss_code"]).sorted())
        let samples = try #require(servers[0]["samples"] as? [[String: Any]])
        #expect(samples[0].keys.sorted() == ["accepted", "detail", "reason", "t1", "t2_ntp", "t3_ntp", "t4"])
        #expect(
            samples[1].keys.sorted() == [
                "accepted", "delay", "error_bound", "offset", "reason", "t1", "t1_ntp", "t2", "t2_ntp", "t3",
                "t3_ntp", "t4", "t4_ntp",
            ])
        #expect(samples[2].keys.sorted() == ["accepted", "detail", "reason", "t1"])
        let http = try #require((report["http"] as? [[String: Any]])?.first)
        #expect(
            http.keys.sorted() == [
                "certificate_time", "error_bound", "error_code", "kind", "offset", "reason", "requests",
                "status",
                "url",
            ])
        let request = try #require((http["requests"] as? [[String: Any]])?.first)
        #expect(
            request.keys.sorted() == [
                "combined", "header", "interval", "method", "round_trip", "sent", "status", "value",
            ])
        let failure = try Self.decode(JSONOutput.line(SyncFailureJSON(Fixture.failure)))
        #expect(
            failure.keys.sorted() == [
                "authenticated", "certificate_time", "downgrade", "error", "http", "servers",
            ])
        let sync = try Self.decode(
            JSONOutput.line(
                SyncReportJSON(
                    Fixture.report, state: "/s", anchorReplaced: true, anchorUpdate: .adopted,
                    frequency: Fixture.frequency)))
        #expect(
            Set(sync.keys).subtracting(report.keys).sorted() == [
                "anchor_replaced", "anchor_update", "frequency", "frequency_reset", "skipped", "state",
            ])
        let now = try Self.decode(
            JSONOutput.line(
                NowJSON(
                    Fixture.comparison, systemClock: Fixture.kernel,
                    frequency: Fixture.frequency)))
        #expect(
            now.keys.sorted() == [
                "age", "authenticated", "drift_corrected", "error_bound", "frequency", "leap", "offset",
                "server",
                "source", "system_clock", "time",
                "unix",
            ])
        let frequency = try #require(now["frequency"] as? [String: Any])
        #expect(
            frequency.keys.sorted() == [
                "age", "carried", "growth_ppm", "interval_ppm", "last_reset", "measured", "ppm", "resets",
                "span", "syncs",
            ])
        let systemClock = try #require(now["system_clock"] as? [String: Any])
        #expect(
            systemClock.keys.sorted() == [
                "estimated_error", "frequency_ppm", "maximum_error", "offset_to_slew", "state", "status",
                "synchronized", "tick",
            ])
    }

    /// The text itself: one line, keys sorted, URLs unescaped, and numbers with the digits the
    /// hand-written emitter used to print (shortest round-trip, no `.0` on whole numbers, exponent
    /// below 1e-4).
    @Test func textFormatIsStable() {
        let line = JSONOutput.line(SyncReportJSON(Fixture.report))
        #expect(!line.contains("\n"))
        #expect(
            line.hasPrefix(
                #"{"authenticated":false,"certificate_time":null,"certificate_warnings":[],"delay":0.000732421875,"downgrade":null,"elapsed":0.012,"error_bound":0.000125,"http":[{"certificate_time":null,"#
            ))
        #expect(line.contains(#""url":"http://127.0.0.1:18080/a/b?x=1""#))
        for fragment in [
            #""offset":1.4998779296875"#, #""packets_sent":7"#, #""unix":1796040000.25"#, #""stratum":2"#,
            #""precision":-20"#, #""jitter":0,"#, #""round_trip":4.1e-05"#, #""sent":0,"#,
            #""interval":[-0.5,0.5]"#, #""estimate":"min-delay""#, #""interval":"# + Self.sampleIntervalText,
            #""t4":1796040000.5009766"#, #""reason":null"#, #""accepted":true"#,
        ] {
            #expect(line.contains(fragment), "missing \(fragment)")
        }
    }
}
