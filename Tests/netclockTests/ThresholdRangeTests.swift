import Testing

@testable import NetclockCLI

/// The Monitoring Plugins threshold syntax, value by value: what each form parses to, which
/// values alert (ends included in the range), and how intervals are judged.
@Suite struct ThresholdRangeTests {
    /// Every form of the guidelines' table, and what parses it to (start, end, alerts inside).
    @Test(arguments: [
        ("10", 0.0, 10.0, false),
        ("10:", 10.0, Double.infinity, false),
        ("~:10", -Double.infinity, 10.0, false),
        ("10:20", 10.0, 20.0, false),
        ("@10:20", 10.0, 20.0, true),
        ("0.5", 0.0, 0.5, false),
        ("-1:1", -1.0, 1.0, false),
        (":5", 0.0, 5.0, false),
        ("~:", -Double.infinity, Double.infinity, false),
        ("@0.1", 0.0, 0.1, true),
        ("1e-3:2E-3", 0.001, 0.002, false),
        ("5:5", 5.0, 5.0, false),
    ])
    func parses(text: String, start: Double, end: Double, inside: Bool) throws {
        let range = try #require(ThresholdRange(parsing: text))
        #expect(range.start == start)
        #expect(range.end == end)
        #expect(range.alertsInside == inside)
        #expect(range.description == text)
    }

    /// Not ranges: empty, a start above the end, words, non-finite and hexadecimal numbers.
    @Test(arguments: [
        "", "@", "20:10", "abc", "inf", "nan", "1:inf", "0x10", "~", "@~", "10:~", "1:2:3", " 1",
    ])
    func rejects(text: String) {
        #expect(ThresholdRange(parsing: text) == nil, "\(text)")
    }

    /// Which values alert, the guidelines' examples among them: ends are inside the range.
    @Test(arguments: [
        ("10", -0.001, true), ("10", 0, false), ("10", 10, false), ("10", 10.001, true),
        ("10:", 9.999, true), ("10:", 10, false), ("10:", 1e12, false),
        ("~:10", -1e12, false), ("~:10", 10, false), ("~:10", 10.5, true),
        ("10:20", 9.9, true), ("10:20", 10, false), ("10:20", 20, false), ("10:20", 20.1, true),
        ("@10:20", 9.9, false), ("@10:20", 10, true), ("@10:20", 15, true), ("@10:20", 20, true),
        ("@10:20", 20.1, false),
    ])
    func alerts(text: String, value: Double, alerts: Bool) throws {
        let range = try #require(ThresholdRange(parsing: text))
        #expect(range.alerts(value) == alerts, "\(text) at \(value)")
    }

    /// An interval alerts throughout only when each of its values alerts, and nowhere only when
    /// none does; one straddling an end does neither.
    @Test(arguments: [
        ("10", 11.0, 12.0, true, false),
        ("10", 9.0, 11.0, false, false),
        ("10", 2.0, 10.0, false, true),
        ("10", 10.0, 10.0, false, true),
        ("10", 10.0, 10.5, false, false),
        ("10:20", 0.0, 9.0, true, false),
        ("10:20", 12.0, 18.0, false, true),
        ("10:20", 5.0, 25.0, false, false),
        ("@10:20", 12.0, 18.0, true, false),
        ("@10:20", 5.0, 25.0, false, false),
        ("@10:20", 21.0, 25.0, false, true),
        ("@10:20", 0.0, 9.99, false, true),
        ("~:10", -5.0, 5.0, false, true),
        ("~:10", 10.5, 11.0, true, false),
    ])
    func intervals(text: String, lower: Double, upper: Double, throughout: Bool, nowhere: Bool) throws {
        let range = try #require(ThresholdRange(parsing: text))
        #expect(range.alertsThroughout(lower...upper) == throughout, "\(text) over \(lower)...\(upper)")
        #expect(range.alertsNowhere(lower...upper) == nowhere, "\(text) over \(lower)...\(upper)")
    }

    /// A point interval agrees with the value's own verdict, for every form and value above.
    @Test func pointIntervalsAgreeWithValues() throws {
        for text in ["10", "10:", "~:10", "10:20", "@10:20", "@0.1", "-1:1"] {
            let range = try #require(ThresholdRange(parsing: text))
            for value in [-20.0, -1, 0, 0.05, 0.1, 1, 9.5, 10, 10.5, 15, 20, 25] {
                #expect(range.alertsThroughout(value...value) == range.alerts(value), "\(text) \(value)")
                #expect(range.alertsNowhere(value...value) == !range.alerts(value), "\(text) \(value)")
            }
        }
    }
}
