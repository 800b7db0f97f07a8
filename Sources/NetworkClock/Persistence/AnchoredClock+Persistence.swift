import ClockCore
import NetClockPlatform
import SNTP
import TimeValues

extension AnchoredClock {
    /// Loads the store's anchor and frequency history into the clock.
    ///
    /// The restored anchor competes like any other (it replaces the current anchor only if its aged
    /// bound is tighter); its frequency history is merged into the clock's. Both continue on the
    /// time-base line they were saved on, unless that line lies ahead of the clock's time base now
    /// (not this boot's, whatever the boot id says): then the history is dropped and the anchor is
    /// placed from its exchange-clock instant, at the kernel's possible slew over its age, as for a
    /// file written before holdover (``AnchoredClock/merge(stored:base:history:carried:)``).
    ///
    /// A file written in an earlier boot of this machine is refused all the same
    /// (``AnchorStoreError/Code/differentBoot``), but what it knew of the oscillator's frequency is
    /// carried over as a widened prior (``AnchoredClock/carryFrequency(fromEarlierBoot:carried:)``).
    /// - Returns: the restored anchor, or why none could be restored.
    @discardableResult
    @available(*, noasync, message: "reads a file; use restore(from:) async")
    package func restore(from store: AnchorStore) -> Result<RestoredAnchor, AnchorStoreError> {
        let (result, earlier) = store.loadIncludingEarlierBoot()
        if case .success(let restored) = result { merge(restored) }
        if let earlier { carryFrequency(fromEarlierBoot: earlier.points, carried: earlier.carried) }
        return result
    }

    /// Merges a restored anchor and its frequency history into the clock.
    private func merge(_ restored: RestoredAnchor) {
        merge(
            stored: restored.anchor, base: restored.timeBase, history: restored.frequencyHistory,
            carried: restored.carriedFrequency)
    }

    /// Saves the clock's anchor, its time-base instant and the frequency history to `store`, merged
    /// with what the file holds now.
    ///
    /// Reading the file, merging it into the clock and writing the result is one critical section
    /// across processes (``AnchorStore/withExclusiveAccess(_:)``): what other processes sharing
    /// the file saved since this clock read it (their anchors, their sync points) is kept, not
    /// overwritten, and this clock learns it too. A file that cannot be read (missing, another
    /// boot, damaged) is replaced.
    /// - Throws: ``AnchorStoreError``; ``AnchorStoreError/Code/invalidAnchor`` when the clock has
    ///   no anchor, ``AnchorStoreError/Code/lockTimeout`` when another process held the lock too
    ///   long. The clock keeps working either way.
    @available(*, noasync, message: "writes and fsyncs a file; use save(to:) async")
    package func save(to store: AnchorStore) throws(AnchorStoreError) {
        try store.withExclusiveAccess { () throws(AnchorStoreError) in
            if case .success(let stored) = store.load() { merge(stored) }
            let (held, frequency, offsets) = persistentState()
            guard let held else {
                throw AnchorStoreError(
                    code: .invalidAnchor, reason: "the clock has no anchor to save", path: store.path)
            }
            try store.save(held.anchor, timeBase: held.base, frequency: frequency, offsets: offsets)
        }
    }

    /// Offers `anchor` as ``offer(_:)`` does, then saves the clock's anchor to `store`.
    ///
    /// The in-memory update has happened even when this throws, so the clock keeps working when the
    /// store cannot be written; what became of the anchor is then only visible through ``anchor``.
    /// - Returns: what became of the anchor.
    @discardableResult
    @available(*, noasync, message: "writes and fsyncs a file; use offer(_:) then save(to:) async")
    package func offer(_ anchor: Anchor, persistingTo store: AnchorStore) throws(AnchorStoreError)
        -> SyncReport.AnchorUpdate
    {
        let update = offer(anchor)
        try save(to: store)
        return update
    }
}

extension AnchoredClock {
    /// Loads the store's anchor and drift history into the clock, reading the file on the
    /// ``BlockingPool`` so the caller's cooperative thread never blocks on file I/O.
    ///
    /// Runs to completion even if the calling task is cancelled (the read is short and bounded).
    /// - Returns: the restored anchor, or why none could be restored.
    @discardableResult
    package func restore(from store: AnchorStore, pool: BlockingPool = .shared) async
        -> Result<RestoredAnchor, AnchorStoreError>
    {
        await pool.runToEnd { self.restore(from: store) }
    }

    /// Saves the clock's anchor and drift history to `store` on the ``BlockingPool`` (the write
    /// `fsync`s the file and its directory).
    ///
    /// Runs to completion even if the calling task is cancelled, so a write is never cut short.
    /// - Throws: ``AnchorStoreError``, as ``save(to:)`` does.
    package func save(to store: AnchorStore, pool: BlockingPool = .shared) async throws(AnchorStoreError) {
        let result = await pool.runToEnd { () -> Result<Void, AnchorStoreError> in
            Result { () throws(AnchorStoreError) in try self.save(to: store) }
        }
        try result.get()
    }
}
