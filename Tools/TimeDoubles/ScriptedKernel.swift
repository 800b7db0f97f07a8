import ClockCore
import NetClockPlatform
import Synchronization

/// A kernel time discipline that a test sets by hand: what ``AnchoredClock`` reads at each update.
package final class ScriptedKernel: Sendable {
    private let state: Mutex<KernelClockState?>

    /// Starts reporting `initial`.
    package init(_ initial: KernelClockState?) {
        state = Mutex(initial)
    }

    /// Reports `new` from the next read on.
    package func set(_ new: KernelClockState?) {
        state.withLock { $0 = new }
    }

    /// The source to hand to ``AnchoredClock``.
    package var source: KernelClockReader {
        KernelClockReader { self.state.withLock { $0 } }
    }

    /// A kernel disciplined by a daemon and steady: PLL on, synchronised, nothing left to slew.
    package static let synchronized = KernelClockState(
        clockState: 0, status: [.pll, .nanosecondResolution], offset: .zero, frequencyPPM: -12.5,
        maximumError: .milliseconds(20), estimatedError: .microseconds(300))

    /// A kernel a daemon is slewing: synchronised, but with `remaining` still to slew out.
    package static func slewing(remaining: Duration) -> KernelClockState {
        KernelClockState(
            clockState: 0, status: [.pll, .nanosecondResolution], offset: remaining, frequencyPPM: 480,
            maximumError: .milliseconds(60), estimatedError: .milliseconds(2))
    }

    /// A kernel no daemon disciplines (the state at boot): `STA_UNSYNC`, `TIME_ERROR`.
    package static let unsynchronized = KernelClockState(
        clockState: KernelClockState.timeError, status: [.unsynchronized], offset: .zero, frequencyPPM: 0,
        maximumError: .seconds(16), estimatedError: .seconds(16))
}
