import ClockCore
import NTSClient
import NetClockPlatform
import SNTP
import Synchronization
import TimeValues

/// The one owner of a clock's state files beside its anchor (``AnchorStore``): the anchor itself
/// (restored at start-up, written after syncs and ingests), the time floor (`<anchor>.floor`) and
/// the NTS keys and cookies (`<anchor>.nts`). Every write goes through the store's private-file
/// routine; every failure is returned for the facade to report, never thrown at a sync.
final class ClockStateFiles: Sendable {
    /// Where the files live; nil when the clock keeps nothing.
    let store: AnchorStore?
    /// What became of the stored anchor at start-up (nil without a store).
    let restoreResult: Result<RestoredAnchor, AnchorStoreError>?
    /// Writes anchors that ingests accepted, off the caller's thread; nil without a store.
    let persister: AnchorPersister?
    /// The least the true time was proven to be: loaded at start-up, raised by authenticated syncs.
    private let floor: Mutex<TimeFloor>
    /// What the NTS cookie file is bound to (nil without a store or NTS servers), or why no
    /// cookies can be kept.
    private let ntsBinding: Result<NTSCookieFile.Binding, AnchorStoreError>?

    /// Restores `clock`'s anchor and the floor from `store`, and binds the NTS cookie file to
    /// this boot and to `trustRoots` as they are now (when `usesNTS`), before any key exchange.
    init(
        store: AnchorStore?, clock: AnchoredClock, usesNTS: Bool, trustRoots: NetworkClock.TrustRoots,
        failed: @escaping @Sendable (AnchorStoreError) -> Void
    ) {
        self.store = store
        self.ntsBinding =
            usesNTS ? store.map { NTSCookieFile.Binding.current(for: $0, trust: trustRoots) } : nil
        self.persister = store.map { AnchorPersister(clock: clock, store: $0, failed: failed) }
        self.restoreResult = store.map { clock.restore(from: $0) }
        // A damaged floor file counts as no floor (the next authenticated sync rewrites it).
        self.floor = Mutex((try? store.map { try TimeFloor.load(from: $0.floorPath) }) ?? TimeFloor())
    }

    /// The time floor now; nil when none is known.
    var floorValue: UnixTime? { floor.withLock { $0.value } }

    /// Writes `clock`'s anchor and frequency history (on the blocking pool: the write fsyncs).
    func saveAnchor(of clock: AnchoredClock) async -> AnchorStoreError? {
        guard let store else { return nil }
        do {
            try await clock.save(to: store)
            return nil
        } catch {
            return error
        }
    }

    /// Raises the floor to what authenticated time proved (`earliest`, and the newest certificate
    /// `notBefore`, in Unix seconds, it rests on) and keeps it beside the anchor: under the store's
    /// lock, merged with what the file holds now (another process may have raised it since), so a
    /// floor is never lowered by a writer that read it earlier.
    func raiseFloor(byAuthenticated earliest: UnixTime, certificateNotBefore: Int64?) async
        -> AnchorStoreError?
    {
        let raised = floor.withLock { floor in
            floor = floor.raised(byAuthenticated: earliest, certificateNotBefore: certificateNotBefore)
            return floor
        }
        guard let store else { return nil }
        let path = store.floorPath
        return await BlockingPool.shared.runToEnd { () -> AnchorStoreError? in
            do throws(AnchorStoreError) {
                try store.withExclusiveAccess { () throws(AnchorStoreError) in
                    // A damaged file is replaced, as before.
                    let kept = (try? TimeFloor.load(from: path)) ?? TimeFloor()
                    let merged = self.floor.withLock { held in
                        held = held.merged(with: kept.merged(with: raised))
                        return held
                    }
                    try merged.save(to: path)
                }
                return nil
            } catch {
                return error
            }
        }
    }

    /// Takes the NTS keys and cookies kept beside the anchor into `sessions` (the file is removed
    /// before any cookie is sent). Returns why a file could not be used (refused as unsafe, another
    /// boot, other trust roots, damaged): that costs a key exchange, and the sync goes on.
    func takeNTSAssociations(into sessions: NTSSessions) async -> AnchorStoreError? {
        guard let store, let ntsBinding else { return nil }
        let result = await BlockingPool.shared.runToEnd { () -> Result<Int, AnchorStoreError> in
            switch ntsBinding {
            case .success(let binding): return sessions.restore(from: store, binding: binding)
            case .failure(let error):
                // The file is not taken, but an unsafe one is still worth a word.
                return .failure(AnchorStore.unsafeFileError(at: store.ntsCookiePath) ?? error)
            }
        }
        if case .failure(let error) = result, error.code != .missing { return error }
        return nil
    }

    /// Hands `sessions`' NTS keys and unused cookies over to the file beside the anchor.
    func keepNTSAssociations(from sessions: NTSSessions) async -> AnchorStoreError? {
        guard let store, case .success(let binding)? = ntsBinding else { return nil }
        return await sessions.save(to: store, binding: binding)
    }
}
