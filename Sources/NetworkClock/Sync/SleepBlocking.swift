import Foundation
import NetClockPlatform
import SNTP

/// Sleeps the calling (non-cooperative) thread on a relative timer, which keeps working when the
/// wall clock is changed or faked.
enum SleepBlocking {
    static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        Thread.sleep(forTimeInterval: duration.secondsDouble)
    }
}
