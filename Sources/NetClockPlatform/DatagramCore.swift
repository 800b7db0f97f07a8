import TimeValues

/// What a protocol core asks of the I/O loop after each event: datagrams to send now, and when to
/// wake it if nothing arrives first. A core never owns a socket or reads a clock: the loop tells
/// it the time with every event (Architecture.md, "Overview").
package struct CoreStep: Hashable, Sendable {
    /// Datagrams to send to the peer now, in order.
    package var send: [[UInt8]]
    /// When to call ``DatagramCore/handleTimer(at:)`` if no datagram arrives before; nil once the
    /// core has finished (its ``DatagramCore/outcome`` is set).
    package var wake: MonotonicInstant?

    /// A step that sends `send` and wakes the core at `wake`.
    package init(send: [[UInt8]] = [], wake: MonotonicInstant?) {
        self.send = send
        self.wake = wake
    }

    /// The step of a core that has finished: nothing to send, no wake-up.
    package static let finished = CoreStep(wake: nil)
}

/// A protocol exchange as a value-type state machine, driven by ``DatagramLoop`` over a connected
/// UDP socket in production and by tests with simulated time and datagrams.
///
/// The contract:
/// - ``start(at:)`` is called once, first.
/// - Then, until ``outcome`` is set, exactly one of ``handle(_:at:)`` (a datagram arrived),
///   ``handleTimer(at:)`` (the last step's `wake` passed), ``handle(failure:at:)`` (the socket
///   failed: refused, unreachable) or ``cancel(at:)`` (the caller gave up) is called per event,
///   with the instant of the event on the loop's monotonic clock.
/// - A step with `wake == nil` means the core has finished; ``outcome`` is then non-nil.
/// - ``cancel(at:)`` always finishes the core.
package protocol DatagramCore: Sendable {
    /// What the exchange produced, once finished.
    associatedtype Outcome: Sendable

    /// Begins the exchange at `now`: usually the first request and its timeout.
    mutating func start(at now: MonotonicInstant) -> CoreStep
    /// A datagram from the peer, received at `now`.
    mutating func handle(_ datagram: [UInt8], at now: MonotonicInstant) -> CoreStep
    /// The wake-up asked for passed; `now` is at or after it.
    mutating func handleTimer(at now: MonotonicInstant) -> CoreStep
    /// Sending or receiving failed (ICMP port unreachable, a system call error).
    mutating func handle(failure: TransportError, at now: MonotonicInstant) -> CoreStep
    /// The caller gave up at `now`; the core finishes with what it has.
    mutating func cancel(at now: MonotonicInstant)
    /// The result, once the core has finished; nil before.
    var outcome: Outcome? { get }
}
