import NetClockPlatform
import TimeValues

/// Drives a protocol core (``DatagramCore``) by hand, as swift-nio's `EmbeddedChannel` drives a
/// handler: the test owns the clock, reads what the core sent, and decides which datagram arrives
/// when. No socket, no thread, no sleep: every timing decision of the core is checked exactly.
///
/// ```swift
/// var driver = ManualDatagramDriver(NTPBurst(to: address, options: options, mapping: mapping), at: t0)
/// let request = try #require(driver.sent.last)
/// driver.advance(by: .milliseconds(10))
/// driver.deliver(reply(to: request))
/// ```
package struct ManualDatagramDriver<Core: DatagramCore> {
    /// The core being driven.
    package private(set) var core: Core
    /// The current instant of the manual monotonic clock.
    package private(set) var now: MonotonicInstant
    /// Every datagram the core sent, with the instant it was sent at, in order.
    package private(set) var sent: [(bytes: [UInt8], at: MonotonicInstant)] = []
    /// When the core wants to be woken next; nil once it has finished.
    package private(set) var wake: MonotonicInstant?

    /// Starts `core` at `start`; what it sends at once is in ``sent``.
    package init(_ core: Core, at start: MonotonicInstant) {
        self.core = core
        self.now = start
        var started = core
        let step = started.start(at: start)
        self.core = started
        apply(step)
    }

    /// The core's outcome once it has finished.
    package var outcome: Core.Outcome? { core.outcome }

    /// Moves the clock forward by `duration`, firing the core's wake-ups as they fall due (each at
    /// its own instant, as the real loop would).
    package mutating func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    /// Moves the clock to `instant`, firing every wake-up due on the way.
    package mutating func advance(to instant: MonotonicInstant) {
        while let wake, wake <= instant {
            now = max(now, wake)
            apply(core.handleTimer(at: now))
        }
        now = max(now, instant)
    }

    /// Runs wake-ups until the core finishes or `limit` has passed.
    package mutating func runUntilFinished(limit: Duration = .seconds(3_600)) {
        let end = now + limit
        while let wake, wake <= end {
            advance(to: wake)
        }
    }

    /// A datagram from the peer arrives now.
    package mutating func deliver(_ datagram: [UInt8]) {
        guard wake != nil else { return }
        apply(core.handle(datagram, at: now))
    }

    /// The socket reports `failure` now.
    package mutating func fail(_ failure: TransportError) {
        guard wake != nil else { return }
        apply(core.handle(failure: failure, at: now))
    }

    /// The caller gives up now.
    package mutating func cancel() {
        guard wake != nil else { return }
        core.cancel(at: now)
        wake = nil
    }

    /// Records what `step` sends and fires a wake-up that is already due, as the real loop does
    /// (it does not wait for a deadline that has passed).
    private mutating func apply(_ step: CoreStep) {
        var step = step
        while true {
            for datagram in step.send { sent.append((datagram, now)) }
            wake = step.wake
            guard let due = wake, due <= now else { return }
            step = core.handleTimer(at: now)
        }
    }
}
