import Synchronization
import TimeValues

/// A lock-free, double-buffered sequence lock holding the ``PublishedAnchor``.
///
/// Readers never block and never allocate: they pick the active slot, read its fields between two
/// reads of the slot's sequence number and retry if it changed. The writer fills the *inactive*
/// slot and then flips `active`, so a writer that is preempted halfway leaves readers on the
/// complete slot instead of spinning; a reader only retries if two publishes happen during its read.
///
/// Writers must be serialized by the caller (``AnchoredClock`` publishes under its mutex).
struct AnchorCell: ~Copyable, Sendable {
    /// One copy of the published fields, each an atomic so that racing reads are well defined.
    /// Slots are non-copyable values stored inline, so reading one touches no reference count.
    private struct Slot: ~Copyable, Sendable {
        let sequence = Atomic<UInt64>(0)
        // The fast path's fields first, so that it touches as few cache lines as possible.
        let fastTrueHigh = Atomic<Int64>(0)
        let fastTrueLow = Atomic<UInt64>(0)
        let anchorAwake = Atomic<Int64>(0)
        let fastBound = Atomic<Int64>(0)
        let suspendedNanoseconds = Atomic<Int64>(0)
        let epoch = Atomic<Int64>(0)
        let frequencyFixed = Atomic<Int64>(0)
        let linearFixed = Atomic<UInt64>(0)
        let wanderFixed = Atomic<UInt64>(0)
        let kneeAwake = Atomic<Int64>(0)
        let kneeGrowth = Atomic<Int64>(0)
        let rateFixed = Atomic<UInt64>(0)
        let metadata = Atomic<UInt64>(0)
        let fastSpan = Atomic<UInt64>(0)
        let leapReportedInstant = Atomic<Int64>(0)
        // The slow path's fields.
        let linearGrowth = Atomic<UInt64>(0)
        let halfWanderRate = Atomic<UInt64>(0)
        let leapFrom = Atomic<Int64>(.max)
        let leapMidnight = Atomic<Int64>(.max)
        let leapKnownThrough = Atomic<Int64>(.max)
        let leapFlags = Atomic<Int64>(0)
        let leapReportBits = Atomic<UInt64>(0)
        let anchorSuspended = Atomic<Int64>(0)
        let boundNanoseconds = Atomic<Int64>(0)
        let halfWidth = Atomic<UInt64>(0)
        let knee = Atomic<UInt64>(0)
        let rateLimit = Atomic<UInt64>(0)
        let suspendTolerance = Atomic<UInt64>(0)
        let suspendResolutionNanoseconds = Atomic<Int64>(0)
        /// Never written: keeps the next slot's fields off this slot's last cache line.
        let padding = CacheLinePadding()

        borrowing func store(_ value: PublishedAnchor) {
            let sequence = sequence.load(ordering: .relaxed)
            self.sequence.store(sequence &+ 1, ordering: .relaxed)
            atomicMemoryFence(ordering: .releasing)
            fastTrueHigh.store(Int64(truncatingIfNeeded: value.fastTrueAttoseconds >> 64), ordering: .relaxed)
            fastTrueLow.store(UInt64(truncatingIfNeeded: value.fastTrueAttoseconds), ordering: .relaxed)
            anchorAwake.store(value.anchorAwake, ordering: .relaxed)
            fastBound.store(value.fastBound, ordering: .relaxed)
            suspendedNanoseconds.store(value.suspendedNanoseconds, ordering: .relaxed)
            epoch.store(value.epoch, ordering: .relaxed)
            frequencyFixed.store(value.frequencyFixed, ordering: .relaxed)
            linearFixed.store(value.linearFixed, ordering: .relaxed)
            wanderFixed.store(value.wanderFixed, ordering: .relaxed)
            linearGrowth.store(value.linearGrowth.bitPattern, ordering: .relaxed)
            halfWanderRate.store(value.halfWanderRate.bitPattern, ordering: .relaxed)
            kneeAwake.store(value.kneeAwake, ordering: .relaxed)
            fastSpan.store(value.fastSpan, ordering: .relaxed)
            kneeGrowth.store(value.kneeGrowth, ordering: .relaxed)
            rateFixed.store(value.rateFixed, ordering: .relaxed)
            metadata.store(value.metadata, ordering: .relaxed)
            leapFrom.store(value.leap.from, ordering: .relaxed)
            leapMidnight.store(value.leap.midnight, ordering: .relaxed)
            leapKnownThrough.store(value.leap.knownThrough, ordering: .relaxed)
            leapFlags.store(value.leap.flags, ordering: .relaxed)
            leapReportedInstant.store(value.leap.reportedInstant, ordering: .relaxed)
            leapReportBits.store(value.leap.reportBits, ordering: .relaxed)
            anchorSuspended.store(value.anchorSuspended, ordering: .relaxed)
            boundNanoseconds.store(value.boundNanoseconds, ordering: .relaxed)
            halfWidth.store(value.halfWidth.bitPattern, ordering: .relaxed)
            knee.store(value.knee.bitPattern, ordering: .relaxed)
            rateLimit.store(value.rateLimit.bitPattern, ordering: .relaxed)
            suspendTolerance.store(value.suspendTolerance.bitPattern, ordering: .relaxed)
            suspendResolutionNanoseconds.store(value.suspendResolutionNanoseconds, ordering: .relaxed)
            self.sequence.store(sequence &+ 2, ordering: .releasing)
        }
    }

    /// Never written: keeps the clock's other fields (its mutex is written at every update) off
    /// the first slot's cache lines. Under contention, a reader then misses only on the lines a
    /// publish really changed.
    private let leadingPadding = CacheLinePadding()
    private let first = Slot()
    private let second = Slot()
    /// 0 selects `first`, 1 selects `second`.
    private let active = Atomic<Int>(0)

    /// Creates an empty cell: ``read()`` returns `nil` until the first ``publish(_:)``.
    init() {}

    /// Publishes a new value. Callers must not publish concurrently.
    borrowing func publish(_ value: PublishedAnchor) {
        let next = 1 - active.load(ordering: .relaxed)
        if next == 0 {
            first.store(value)
        } else {
            second.store(value)
        }
        active.store(next, ordering: .releasing)
    }

    /// Takes the published value back: readers see none again, as before the first publish.
    /// Callers must not publish concurrently.
    borrowing func clear() {
        publish(.none)
    }

    /// The latest published value, or `nil` if none was published.
    @inline(__always)
    borrowing func read() -> PublishedAnchor? {
        while true {
            let result =
                active.load(ordering: .acquiring) == 0 ? Self.read(first) : Self.read(second)
            if let result { return result }
        }
    }

    /// The estimate from the latest published value at the awake reading `read` returns, if the
    /// suspend epoch it returns is the one the value was published for; nil when it is not (or
    /// nothing was published): the caller then takes the slow path.
    ///
    /// The hot path of ``AnchoredClock/now()``: it loads only the fields the fast estimate needs
    /// and computes from locals, so no published value is copied. The clocks are read inside the
    /// slot's sequence window, after its first sequence load: a reading whose window saw no publish
    /// is later than the publish of the fields it is paired with (the estimate's age is never
    /// negative). Only two publishes during the reads (the writer fills the other slot first) make
    /// the reader retry, clocks and all. Most fields are loaded after the reads, so that they are not
    /// held across the three calls of the vDSO (Benchmarks.md, "now(): where the time goes").
    @inline(__always)
    borrowing func estimate(reading read: () -> (awake: Int64, epoch: Int64)) -> TimeEstimate? {
        while true {
            let attempt =
                active.load(ordering: .acquiring) == 0
                ? Self.estimate(first, reading: read) : Self.estimate(second, reading: read)
            if let attempt { return attempt }
        }
    }

    /// One attempt at the fast estimate from `slot`: `.some(nil)` for the slow path, `nil` when two
    /// publishes raced with it and the caller must retry.
    @inline(__always)
    private static func estimate(
        _ slot: borrowing Slot, reading read: () -> (awake: Int64, epoch: Int64)
    ) -> TimeEstimate?? {
        let before = slot.sequence.load(ordering: .acquiring)
        if before & 1 != 0 { return nil }
        // Nothing published (or a publish racing with this load): the slow path reads the cell in
        // full.
        let metadata = slot.metadata.load(ordering: .relaxed)
        guard metadata & 1 != 0 else { return .some(nil) }
        let (awake, epoch) = read()
        // Each field is loaded where it is used, and the estimate computed before the sequence is
        // checked again (wrapping arithmetic: fields torn by a racing publish cannot trap, and
        // such an estimate is thrown away), so that few values are live at once.
        let elapsed = awake &- slot.anchorAwake.load(ordering: .relaxed)
        // Near a leap second (or past a month end nothing is known about), and before the anchor,
        // the slow path applies: one unsigned comparison of the reading, before any arithmetic
        // (``PublishedAnchor/fastSpan``).
        guard slot.epoch.load(ordering: .relaxed) == epoch,
            UInt64(bitPattern: elapsed) < slot.fastSpan.load(ordering: .relaxed)
        else { return .some(nil) }
        let estimate = PublishedAnchor.estimate(
            elapsed: elapsed,
            fastTrueAttoseconds: Int128(slot.fastTrueHigh.load(ordering: .relaxed)) << 64
                | Int128(slot.fastTrueLow.load(ordering: .relaxed)),
            fastBound: slot.fastBound.load(ordering: .relaxed),
            suspendedNanoseconds: slot.suspendedNanoseconds.load(ordering: .relaxed),
            frequencyFixed: slot.frequencyFixed.load(ordering: .relaxed),
            linearFixed: slot.linearFixed.load(ordering: .relaxed),
            wanderFixed: slot.wanderFixed.load(ordering: .relaxed),
            kneeAwake: slot.kneeAwake.load(ordering: .relaxed),
            kneeGrowth: slot.kneeGrowth.load(ordering: .relaxed),
            rateFixed: slot.rateFixed.load(ordering: .relaxed), metadata: metadata,
            leapReported: slot.leapReportedInstant.load(ordering: .relaxed))
        atomicMemoryFence(ordering: .acquiring)
        guard slot.sequence.load(ordering: .relaxed) == before else { return nil }
        return estimate
    }

    /// The leap fields of `slot` (relaxed loads, inside the caller's sequence window).
    @inline(__always)
    private static func leap(_ slot: borrowing Slot) -> PublishedLeap {
        PublishedLeap(
            from: slot.leapFrom.load(ordering: .relaxed),
            midnight: slot.leapMidnight.load(ordering: .relaxed),
            knownThrough: slot.leapKnownThrough.load(ordering: .relaxed),
            flags: slot.leapFlags.load(ordering: .relaxed),
            reportedInstant: slot.leapReportedInstant.load(ordering: .relaxed),
            reportBits: slot.leapReportBits.load(ordering: .relaxed))
    }

    /// One attempt to read `slot`: `.some(nil)` when nothing was published, `nil` when a publish
    /// raced with the read and the caller must retry.
    @inline(__always)
    private static func read(_ slot: borrowing Slot) -> PublishedAnchor?? {
        let before = slot.sequence.load(ordering: .acquiring)
        if before & 1 != 0 { return nil }
        let high = slot.fastTrueHigh.load(ordering: .relaxed)
        let low = slot.fastTrueLow.load(ordering: .relaxed)
        let value = PublishedAnchor(
            fastTrueAttoseconds: Int128(high) << 64 | Int128(low),
            anchorAwake: slot.anchorAwake.load(ordering: .relaxed),
            fastBound: slot.fastBound.load(ordering: .relaxed),
            suspendedNanoseconds: slot.suspendedNanoseconds.load(ordering: .relaxed),
            epoch: slot.epoch.load(ordering: .relaxed),
            frequencyFixed: slot.frequencyFixed.load(ordering: .relaxed),
            linearGrowth: Double(bitPattern: slot.linearGrowth.load(ordering: .relaxed)),
            halfWanderRate: Double(bitPattern: slot.halfWanderRate.load(ordering: .relaxed)),
            kneeAwake: slot.kneeAwake.load(ordering: .relaxed),
            kneeGrowth: slot.kneeGrowth.load(ordering: .relaxed),
            rateFixed: slot.rateFixed.load(ordering: .relaxed),
            metadata: slot.metadata.load(ordering: .relaxed), leap: leap(slot),
            linearFixed: slot.linearFixed.load(ordering: .relaxed),
            wanderFixed: slot.wanderFixed.load(ordering: .relaxed),
            fastSpan: slot.fastSpan.load(ordering: .relaxed),
            anchorSuspended: slot.anchorSuspended.load(ordering: .relaxed),
            boundNanoseconds: slot.boundNanoseconds.load(ordering: .relaxed),
            halfWidth: Double(bitPattern: slot.halfWidth.load(ordering: .relaxed)),
            knee: Double(bitPattern: slot.knee.load(ordering: .relaxed)),
            rateLimit: Double(bitPattern: slot.rateLimit.load(ordering: .relaxed)),
            suspendTolerance: Double(bitPattern: slot.suspendTolerance.load(ordering: .relaxed)),
            suspendResolutionNanoseconds: slot.suspendResolutionNanoseconds.load(ordering: .relaxed))
        atomicMemoryFence(ordering: .acquiring)
        guard slot.sequence.load(ordering: .relaxed) == before else { return nil }
        guard value.metadata & 1 != 0 else { return .some(nil) }
        return value
    }
}

extension PublishedAnchor {
    /// No anchor: its metadata's valid bit is clear, which readers take for nothing published.
    static let none = PublishedAnchor(
        fastTrueAttoseconds: 0, anchorAwake: 0, fastBound: 0, suspendedNanoseconds: 0, epoch: 0,
        frequencyFixed: 0,
        linearGrowth: 0, halfWanderRate: 0, kneeAwake: 0, kneeGrowth: 0, rateFixed: 0, metadata: 0,
        leap: .none, linearFixed: 0, wanderFixed: 0, fastSpan: 0,
        anchorSuspended: 0, boundNanoseconds: 0, halfWidth: 0, knee: 0, rateLimit: 0, suspendTolerance: 0,
        suspendResolutionNanoseconds: 0)

    /// Reassembles a published value from the cell's fields.
    @inline(__always)
    init(
        fastTrueAttoseconds: Int128, anchorAwake: Int64, fastBound: Int64, suspendedNanoseconds: Int64,
        epoch: Int64, frequencyFixed: Int64, linearGrowth: Double, halfWanderRate: Double, kneeAwake: Int64,
        kneeGrowth: Int64, rateFixed: UInt64, metadata: UInt64, leap: PublishedLeap, linearFixed: UInt64,
        wanderFixed: UInt64, fastSpan: UInt64, anchorSuspended: Int64,
        boundNanoseconds: Int64, halfWidth: Double, knee: Double, rateLimit: Double, suspendTolerance: Double,
        suspendResolutionNanoseconds: Int64
    ) {
        self.fastTrueAttoseconds = fastTrueAttoseconds
        self.anchorAwake = anchorAwake
        self.fastBound = fastBound
        self.suspendedNanoseconds = suspendedNanoseconds
        self.epoch = epoch
        self.frequencyFixed = frequencyFixed
        self.linearGrowth = linearGrowth
        self.halfWanderRate = halfWanderRate
        self.kneeAwake = kneeAwake
        self.kneeGrowth = kneeGrowth
        self.rateFixed = rateFixed
        self.metadata = metadata
        self.leap = leap
        self.linearFixed = linearFixed
        self.wanderFixed = wanderFixed
        self.fastSpan = fastSpan
        self.anchorSuspended = anchorSuspended
        self.boundNanoseconds = boundNanoseconds
        self.halfWidth = halfWidth
        self.knee = knee
        self.rateLimit = rateLimit
        self.suspendTolerance = suspendTolerance
        self.suspendResolutionNanoseconds = suspendResolutionNanoseconds
    }
}

/// 64 bytes that are never written, to keep fields that different threads write on separate cache
/// lines.
private struct CacheLinePadding: ~Copyable, Sendable {
    let a = Atomic<UInt64>(0), b = Atomic<UInt64>(0), c = Atomic<UInt64>(0), d = Atomic<UInt64>(0)
    let e = Atomic<UInt64>(0), f = Atomic<UInt64>(0), g = Atomic<UInt64>(0), h = Atomic<UInt64>(0)
}
