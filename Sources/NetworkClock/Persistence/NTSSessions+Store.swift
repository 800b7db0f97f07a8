import NTSClient
import NetClockPlatform

extension NTSSessions {
    /// Takes the NTS associations kept beside `store`'s anchor (the file is removed before any
    /// of its cookies can be sent) and adopts those for servers with none yet.
    ///
    /// A small bounded read; call it before a sync, on the blocking pool from async code.
    /// - Returns: how many were adopted, or why the file gave none:
    ///   ``AnchorStoreError/Code/missing`` when none is kept, an unsafe-file code
    ///   (``AnchorStoreError/isUnsafeFile``) when the file was refused and left as it is, else
    ///   the reason it was discarded (another boot, other trust roots, format 1, damage).
    @discardableResult
    package func restore(from store: AnchorStore, binding: NTSCookieFile.Binding)
        -> Result<Int, AnchorStoreError>
    {
        NTSCookieFile.take(from: store.ntsCookiePath, binding: binding).map { restore($0) }
    }

    /// Hands the usable associations over to the file beside `store`'s anchor, on the blocking
    /// pool, to completion. They leave these sessions (``handOverAssociations()``): whoever
    /// takes the file next, this process's next sync or another process, holds the only copy.
    /// - Returns: why the file could not be written.
    @discardableResult
    package func save(to store: AnchorStore, binding: NTSCookieFile.Binding, pool: BlockingPool = .shared)
        async -> AnchorStoreError?
    {
        let saved = handOverAssociations()
        return await pool.runToEnd {
            NTSCookieFile.save(saved, to: store.ntsCookiePath, binding: binding)
        }
    }
}
