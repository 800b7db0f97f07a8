import NetClockPlatform
import SNTP

extension AnchoredClock {
    /// Loads the store's anchor and frequency history into the clock, reading the file on the
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

    /// Saves the clock's anchor and frequency history to `store` on the ``BlockingPool`` (the write
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
