import Testing

@testable import NetclockCLI

/// The verdict of `netclock check` from offset, bound and authentication: CRITICAL only when
/// proven, OK only when proven, WARNING in between, UNKNOWN without time or with too wide a bound.
@Suite struct CheckVerdictTests {
    static func thresholds(_ warning: String = "0.5", _ critical: String = "1", maxBound: Double? = nil)
        throws
        -> CheckThresholds
    {
        CheckThresholds(
            warning: try #require(ThresholdRange(parsing: warning)),
            critical: try #require(ThresholdRange(parsing: critical)), maxBound: maxBound)
    }

    /// `-w 0.5 -c 1`: offset, bound, and the verdict. Signs do not matter (magnitudes are judged).
    @Test(arguments: [
        // Proven inside the warning range.
        (0.012, 0.003, PluginStatus.ok),
        (-0.4, 0.1, .ok),
        (0.0, 0.5, .ok),
        // check_ntp_time's OK with a bound reaching over -w: not proven, WARNING.
        (0.3, 0.35, .warning),
        (-0.3, 0.35, .warning),
        // Proven beyond -w, proven inside -c.
        (0.7, 0.001, .warning),
        (-0.7, 0.2, .warning),
        // Beyond -c by the offset, but the bound reaches back inside: not proven, WARNING.
        (1.2, 0.3, .warning),
        (-1.05, 0.1, .warning),
        // Proven beyond -c.
        (1.5, 0.4, .critical),
        (-3.0, 0.001, .critical),
        (1.0001, 0.0, .critical),
        // Exactly at the ends: inside (ends belong to the range).
        (0.5, 0.0, .ok),
        (1.0, 0.0, .warning),
        // A bound so wide it spans every verdict.
        (0.0, 5.0, .warning),
    ])
    func judged(offset: Double, bound: Double, status: PluginStatus) throws {
        let evidence = CheckEvidence(offset: offset, errorBound: bound, isAuthenticated: true)
        let verdict = CheckVerdict.judge(evidence, against: try Self.thresholds())
        #expect(verdict.status == status, "\(offset) ± \(bound): \(verdict.reasons)")
        #expect(verdict.reasons.isEmpty == (status == .ok))
    }

    @Test func theReasonsSayWhetherAnAlertIsProven() throws {
        let thresholds = try Self.thresholds()
        let maybe = CheckVerdict.judge(
            CheckEvidence(offset: 0.3, errorBound: 0.35, isAuthenticated: false), against: thresholds)
        #expect(maybe.reasons == ["offset may alert -w 0.5 within its error bound"])
        let proven = CheckVerdict.judge(
            CheckEvidence(offset: 0.7, errorBound: 0.1, isAuthenticated: false), against: thresholds)
        #expect(proven.reasons == ["offset proven to alert -w 0.5"])
        let critical = CheckVerdict.judge(
            CheckEvidence(offset: 1.2, errorBound: 0.3, isAuthenticated: false), against: thresholds)
        #expect(critical.reasons == ["offset may alert -c 1 within its error bound"])
        let provenCritical = CheckVerdict.judge(
            CheckEvidence(offset: 2, errorBound: 0.3, isAuthenticated: false), against: thresholds)
        #expect(provenCritical.reasons == ["offset proven to alert -c 1"])
    }

    @Test func noTimeIsUnknown() throws {
        let verdict = CheckVerdict.judge(
            nil, against: try Self.thresholds(), missing: "no trusted time: timeout")
        #expect(verdict == CheckVerdict(status: .unknown, reasons: ["no trusted time: timeout"]))
    }

    /// `--max-bound`: a wider bound is UNKNOWN whatever the offset; a bound equal to it is judged.
    @Test(arguments: [
        (0.0, 0.26, PluginStatus.unknown), (5.0, 0.26, .unknown), (0.0, 0.25, .ok), (5.0, 0.25, .critical),
    ])
    func maxBound(offset: Double, bound: Double, status: PluginStatus) throws {
        let evidence = CheckEvidence(offset: offset, errorBound: bound, isAuthenticated: true)
        let verdict = CheckVerdict.judge(evidence, against: try Self.thresholds(maxBound: 0.25))
        #expect(verdict.status == status)
        if status == .unknown {
            #expect(verdict.reasons == ["error bound 0.26s wider than --max-bound 0.25s"])
        }
    }

    /// A downgrade is WARNING at least and says so; it does not soften a CRITICAL.
    @Test(arguments: [(0.01, PluginStatus.warning), (0.7, .warning), (3.0, .critical)])
    func downgrade(offset: Double, status: PluginStatus) throws {
        let evidence = CheckEvidence(
            offset: offset, errorBound: 0.01, isAuthenticated: false, isDowngraded: true)
        let verdict = CheckVerdict.judge(evidence, against: try Self.thresholds())
        #expect(verdict.status == status)
        #expect(
            verdict.reasons.last
                == "downgrade: authenticated sources configured, only unauthenticated ones answered")
    }

    /// Non-finite or negative figures are never judged.
    @Test(arguments: [(Double.nan, 0.1), (0.1, .infinity), (0.1, -0.1)])
    func malformedEvidenceIsUnknown(offset: Double, bound: Double) throws {
        let evidence = CheckEvidence(offset: offset, errorBound: bound, isAuthenticated: true)
        #expect(CheckVerdict.judge(evidence, against: try Self.thresholds()).status == .unknown)
    }

    /// `@` ranges: an offset proven inside `@0:0.001` (suspiciously perfect) is critical.
    @Test func insideRanges() throws {
        let thresholds = try Self.thresholds("@0:0.01", "@0:0.001")
        let perfect = CheckEvidence(offset: 0.0002, errorBound: 0.0003, isAuthenticated: true)
        #expect(CheckVerdict.judge(perfect, against: thresholds).status == .critical)
        let usual = CheckEvidence(offset: 0.05, errorBound: 0.01, isAuthenticated: true)
        #expect(CheckVerdict.judge(usual, against: thresholds).status == .ok)
        let between = CheckEvidence(offset: 0.005, errorBound: 0.001, isAuthenticated: true)
        #expect(CheckVerdict.judge(between, against: thresholds).status == .warning)
    }

    /// The defaults are check_ntp_time's: 60 s and 120 s.
    @Test func defaults() {
        let thresholds = CheckThresholds()
        #expect(thresholds.warning.description == "60" && thresholds.critical.description == "120")
        let judge = { (offset: Double) in
            CheckVerdict.judge(
                CheckEvidence(offset: offset, errorBound: 0.01, isAuthenticated: true), against: thresholds
            ).status
        }
        #expect(judge(30) == .ok && judge(-90) == .warning && judge(200) == .critical)
    }

    /// The interval of magnitudes: from zero when the bound straddles zero.
    @Test(arguments: [
        (0.3, 0.35, 0.0, 0.65), (-0.3, 0.35, 0.0, 0.65), (1.0, 0.2, 0.8, 1.2), (-1.0, 0.2, 0.8, 1.2),
    ])
    func magnitude(offset: Double, bound: Double, lower: Double, upper: Double) {
        let magnitude = CheckEvidence(offset: offset, errorBound: bound, isAuthenticated: true).magnitude
        #expect(abs(magnitude.lowerBound - lower) < 1e-12 && abs(magnitude.upperBound - upper) < 1e-12)
    }
}
