import TimeValues

extension HeldAnchor {
    /// Applies the anchor's leap schedule to a time just carried along the line from `start` (the
    /// anchor's time before aging): anchors hold POSIX time, so a step crossed is applied (and
    /// marked applied), a straddled one and every unknown month end reached widen the bound by 1 s,
    /// and the month ends reached are from then on accounted for in the bound.
    mutating func applyLeap(from start: UnixTime) {
        let published = PublishedLeap(anchor.leap, anchorTime: start, smear: false)
        let time = anchor.trueTime.sinceEpoch.attoseconds
        let bound = anchor.errorBound.nanosecondsRoundedUp
        guard published.applies(time: time, bound: bound) else { return }
        let result = published.apply(time: time, bound: bound)
        var leap = anchor.leap.relative(to: start)
        if let step = leap.stepInstant, !leap.applied, time >= Int128(step) * PublishedLeap.second {
            leap.applied = true
        }
        let latest = (time + Int128(bound) * 1_000_000_000) / PublishedLeap.second
        leap.knownThrough = max(leap.knownThrough ?? .min, Int64(clamping: latest) + 1)
        anchor.trueTime = UnixTime(sinceEpoch: Duration(attoseconds: result.time))
        anchor.errorBound = .nanoseconds(result.bound)
        anchor.leap = leap
    }
}
