extension Duration {
    /// How far a clock whose rate is off by at most `ppm` parts per million can drift over this
    /// duration: the product rounded up to a whole nanosecond, plus one for the rounding of the
    /// product itself, so that a bound widened by it is never narrower than exact arithmetic would
    /// make it. Zero for a non-positive duration or tolerance. The package's one drift rule.
    package func drift(atPPM ppm: Double) -> Duration {
        guard self > .zero, ppm > 0, ppm.isFinite else { return .zero }
        let (seconds, attoseconds) = components
        let nanoseconds = (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) * ppm / 1e6
        guard nanoseconds < 9e18 else { return .seconds(Int64.max / 2) }
        return .nanoseconds(Int64(nanoseconds.rounded(.up)) + 1)
    }
}

/// The local clock's frequency tolerance: how fast it may drift from true time, in parts per million.
@usableFromInline package enum FrequencyTolerance {
    /// 15 ppm: a typical uncompensated crystal, NTP's own assumption (RFC 5905's PHI); the package's
    /// one definition of it.
    @usableFromInline package static let defaultPPM: Double = 15

    /// `ppm` if it is a usable tolerance (finite, 0…1000), else the default.
    package static func valid(_ ppm: Double) -> Double {
        ppm.isFinite && ppm >= 0 ? min(ppm, 1000) : defaultPPM
    }
}
