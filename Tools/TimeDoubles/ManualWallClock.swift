import Synchronization
import TimeValues

/// A wall clock that moves only when a test says so.
package final class ManualWallClock: WallClock, Sendable {
    private let reading: Mutex<UnixTime>
    package init(_ start: UnixTime) { reading = Mutex(start) }
    package func now() -> UnixTime { reading.withLock { $0 } }
    package func advance(by duration: Duration) { reading.withLock { $0 = $0 + duration } }
}
