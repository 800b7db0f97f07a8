/// Why the clock's frequency history was reset: a new time contradicted the frequency the earlier
/// ones had measured.
public struct FrequencyReset: Sendable, Hashable, CustomStringConvertible {
    /// `frequency_changed` (the sync's pairs with earlier syncs do not agree on one frequency) or
    /// `discontinuity` (the sync did not overlap the clock's prediction at all, so the anchor was
    /// replaced: ``AnchorUpdate/discontinuous(step:)``).
    public let code: String
    /// The frequency error the clock had measured before the reset, in ppm (positive when the
    /// local oscillator runs fast); nil when it had only the prior.
    public let previousPPM: Double?
    /// Where it had the frequency error before the reset, in ppm; nil when only the prior.
    public let previousIntervalPPM: ClosedRange<Double>?

    package init(code: String, previousPPM: Double?, previousIntervalPPM: ClosedRange<Double>?) {
        self.code = code
        self.previousPPM = previousPPM
        self.previousIntervalPPM = previousIntervalPPM
    }

    /// E.g. `frequency_changed (was -59.996 ppm, -61.101…-58.891)`.
    public var description: String {
        guard let previousPPM, let range = previousIntervalPPM else { return code }
        return code
            + " (was \(Self.format(previousPPM)) ppm, \(Self.format(range.lowerBound))…\(Self.format(range.upperBound)))"
    }

    private static func format(_ value: Double) -> String {
        let scaled = (value * 1000).rounded() / 1000
        return "\(scaled)"
    }
}
