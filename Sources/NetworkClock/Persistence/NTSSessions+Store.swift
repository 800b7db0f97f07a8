import NTSClient
import NetClockPlatform

extension NTSSessions {
    /// Adopts the NTS associations kept beside `store`'s anchor (this boot, these trust roots);
    /// returns how many were adopted. A small bounded read; nothing happens when none is kept.
    @discardableResult
    package func restore(from store: AnchorStore, trust: NetworkClock.TrustRoots) -> Int {
        restore(NTSCookieFile.load(from: store.ntsCookiePath, bootID: store.currentBootID, trust: trust))
    }

    /// Keeps the usable associations beside `store`'s anchor, on the blocking pool, to completion.
    /// - Returns: a reason when the file could not be written.
    @discardableResult
    package func save(to store: AnchorStore, trust: NetworkClock.TrustRoots, pool: BlockingPool = .shared)
        async
        -> String?
    {
        let saved = savedAssociations()
        return await pool.runToEnd {
            NTSCookieFile.save(saved, to: store.ntsCookiePath, bootID: store.currentBootID, trust: trust)
        }
    }
}
