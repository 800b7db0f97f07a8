import ClockCore
import NetClockPlatform
import Synchronization

/// The boot id and time-namespace offsets a test sets by hand: what ``AnchoredClock`` reads on its
/// slow paths (a restore moves the offsets; a restore on another machine changes the boot id).
/// It counts its reads, so a test can tell the hot path never reads it.
package final class ScriptedIdentity: Sendable {
    private let state: Mutex<(identity: ClockIdentity, reads: Int)>

    /// Starts reporting `initial`.
    package init(_ initial: ClockIdentity = ClockIdentity(bootID: "boot-A", offsets: .zero)) {
        state = Mutex((initial, 0))
    }

    /// Reports `new` from the next read on.
    package func set(_ new: ClockIdentity) {
        state.withLock { $0.identity = new }
    }

    /// How many times the clock read it.
    package var reads: Int { state.withLock { $0.reads } }

    /// The reader to hand to an ``AnchoredClock``.
    package var reader: ClockIdentityReader {
        ClockIdentityReader {
            self.state.withLock { state in
                state.reads += 1
                return state.identity
            }
        }
    }

    /// The offsets to hand to an ``AnchorStore`` as its namespace.
    package var offsets: @Sendable () -> Result<TimeNamespaceOffsets, TimeNamespaceUnreadable> {
        {
            self.state.withLock { state in
                state.identity.offsets.map { .success($0) } ?? .failure(TimeNamespaceUnreadable("scripted"))
            }
        }
    }
}
