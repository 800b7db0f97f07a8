import SNTP
import Synchronization

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
        let trueHigh = Atomic<Int64>(0)
        let trueLow = Atomic<UInt64>(0)
        let anchorAwake = Atomic<Int64>(0)
        let anchorSuspended = Atomic<Int64>(0)
        let boundNanoseconds = Atomic<Int64>(0)
        let suspendedNanoseconds = Atomic<Int64>(0)
        let epoch = Atomic<Int64>(0)
        let suspendResolution = Atomic<Int64>(0)
        let frequencyErrorBits = Atomic<UInt64>(0)
        let halfWidthBits = Atomic<UInt64>(0)
        let halfWanderRateBits = Atomic<UInt64>(0)
        let kneeBits = Atomic<UInt64>(0)
        let rateLimitBits = Atomic<UInt64>(0)
        let baseGrowthBits = Atomic<UInt64>(0)
        let suspendToleranceBits = Atomic<UInt64>(0)
        /// Bit 0: present; bit 1: drift corrected; bit 2: authenticated; bits 8–15: source code; bits 32–63: server id.
        let metadata = Atomic<UInt64>(0)

        borrowing func store(_ value: PublishedAnchor) {
            let sequence = sequence.load(ordering: .relaxed)
            self.sequence.store(sequence &+ 1, ordering: .relaxed)
            atomicMemoryFence(ordering: .releasing)
            trueHigh.store(Int64(truncatingIfNeeded: value.trueAttoseconds >> 64), ordering: .relaxed)
            trueLow.store(UInt64(truncatingIfNeeded: value.trueAttoseconds), ordering: .relaxed)
            anchorAwake.store(value.anchorAwake, ordering: .relaxed)
            anchorSuspended.store(value.anchorSuspended, ordering: .relaxed)
            boundNanoseconds.store(value.boundNanoseconds, ordering: .relaxed)
            suspendedNanoseconds.store(value.suspendedNanoseconds, ordering: .relaxed)
            epoch.store(value.epoch, ordering: .relaxed)
            suspendResolution.store(value.suspendResolutionNanoseconds, ordering: .relaxed)
            frequencyErrorBits.store(value.frequencyError.bitPattern, ordering: .relaxed)
            halfWidthBits.store(value.halfWidth.bitPattern, ordering: .relaxed)
            halfWanderRateBits.store(value.halfWanderRate.bitPattern, ordering: .relaxed)
            kneeBits.store(value.knee.bitPattern, ordering: .relaxed)
            rateLimitBits.store(value.rateLimit.bitPattern, ordering: .relaxed)
            baseGrowthBits.store(value.baseGrowth.bitPattern, ordering: .relaxed)
            suspendToleranceBits.store(value.suspendTolerance.bitPattern, ordering: .relaxed)
            var bits: UInt64 = 1
            if value.isDriftCorrected { bits |= 2 }
            if value.isAuthenticated { bits |= 4 }
            bits |= UInt64(value.source.code) << 8
            bits |= UInt64(value.serverIdentifier) << 32
            metadata.store(bits, ordering: .relaxed)
            self.sequence.store(sequence &+ 2, ordering: .releasing)
        }
    }

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

    /// The latest published value, or `nil` if none was published.
    @inline(__always)
    borrowing func read() -> PublishedAnchor? {
        while true {
            let result =
                active.load(ordering: .acquiring) == 0 ? Self.read(first) : Self.read(second)
            if let result { return result }
        }
    }

    /// One attempt to read `slot`: `.some(nil)` when nothing was published, `nil` when a publish
    /// raced with the read and the caller must retry.
    @inline(__always)
    private static func read(_ slot: borrowing Slot) -> PublishedAnchor?? {
        let before = slot.sequence.load(ordering: .acquiring)
        if before & 1 != 0 { return nil }
        let high = slot.trueHigh.load(ordering: .relaxed)
        let low = slot.trueLow.load(ordering: .relaxed)
        let value = PublishedAnchor(
            trueAttoseconds: Int128(high) << 64 | Int128(low),
            anchorAwake: slot.anchorAwake.load(ordering: .relaxed),
            anchorSuspended: slot.anchorSuspended.load(ordering: .relaxed),
            boundNanoseconds: slot.boundNanoseconds.load(ordering: .relaxed),
            frequencyError: Double(bitPattern: slot.frequencyErrorBits.load(ordering: .relaxed)),
            halfWidth: Double(bitPattern: slot.halfWidthBits.load(ordering: .relaxed)),
            halfWanderRate: Double(bitPattern: slot.halfWanderRateBits.load(ordering: .relaxed)),
            knee: Double(bitPattern: slot.kneeBits.load(ordering: .relaxed)),
            rateLimit: Double(bitPattern: slot.rateLimitBits.load(ordering: .relaxed)),
            suspendedNanoseconds: slot.suspendedNanoseconds.load(ordering: .relaxed),
            baseGrowth: Double(bitPattern: slot.baseGrowthBits.load(ordering: .relaxed)),
            epoch: slot.epoch.load(ordering: .relaxed),
            suspendTolerance: Double(bitPattern: slot.suspendToleranceBits.load(ordering: .relaxed)),
            suspendResolutionNanoseconds: slot.suspendResolution.load(ordering: .relaxed),
            metadata: slot.metadata.load(ordering: .relaxed))
        atomicMemoryFence(ordering: .acquiring)
        guard slot.sequence.load(ordering: .relaxed) == before else { return nil }
        guard let value else { return .some(nil) }
        return value
    }
}

extension PublishedAnchor {
    /// Reassembles a published value from the cell's fields; nil when `metadata` says nothing was
    /// published.
    @inline(__always)
    init?(
        trueAttoseconds: Int128, anchorAwake: Int64, anchorSuspended: Int64, boundNanoseconds: Int64,
        frequencyError: Double, halfWidth: Double, halfWanderRate: Double, knee: Double, rateLimit: Double,
        suspendedNanoseconds: Int64, baseGrowth: Double, epoch: Int64,
        suspendTolerance: Double, suspendResolutionNanoseconds: Int64, metadata: UInt64
    ) {
        guard metadata & 1 != 0 else { return nil }
        self.trueAttoseconds = trueAttoseconds
        self.anchorAwake = anchorAwake
        self.anchorSuspended = anchorSuspended
        self.boundNanoseconds = boundNanoseconds
        self.frequencyError = frequencyError
        self.halfWidth = halfWidth
        self.halfWanderRate = halfWanderRate
        self.knee = knee
        self.rateLimit = rateLimit
        self.suspendedNanoseconds = suspendedNanoseconds
        self.baseGrowth = baseGrowth
        self.epoch = epoch
        self.suspendTolerance = suspendTolerance
        self.suspendResolutionNanoseconds = suspendResolutionNanoseconds
        self.source = TimeSource(code: UInt8(truncatingIfNeeded: metadata >> 8))
        self.serverIdentifier = UInt32(truncatingIfNeeded: metadata >> 32)
        self.isDriftCorrected = metadata & 2 != 0
        self.isAuthenticated = metadata & 4 != 0
    }
}
