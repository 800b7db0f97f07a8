import TimeValues

/// The one I/O loop that drives any ``DatagramCore`` over a connected UDP socket: it sends what the
/// core asks, waits in `poll(2)` for a datagram or the core's wake-up, and tells the core what
/// happened and when, on the given monotonic clock.
///
/// The loop holds no protocol knowledge. It waits in slices of at most ``CancellableWait/slice``,
/// so that `isCancelled` is noticed within one slice; every wait is also bounded on the kernel's
/// boot-time clock, so that an injected monotonic clock that does not advance cannot make it wait
/// for ever.
package enum DatagramLoop {
    /// Room for any UDP datagram (the IPv4 maximum payload is 65,507 bytes): a reply is never cut
    /// short by the receive buffer, whatever the protocol lets a server send.
    package static let receiveCapacity = 65_536

    /// Runs `core` to its end over `socket` and returns its outcome.
    ///
    /// Blocks the calling thread; run it on the blocking pool.
    @available(*, noasync, message: "blocks in poll(2); run it on the blocking pool")
    package static func run<Core: DatagramCore>(
        _ core: inout Core, over socket: UDPSocket, clock: some MonotonicClock,
        isCancelled: () -> Bool = { false }
    ) -> Core.Outcome? {
        var buffer = [UInt8](repeating: 0, count: receiveCapacity)
        var step = core.start(at: clock.now())
        while true {
            step = send(step, of: &core, over: socket, clock: clock)
            guard let wake = step.wake else { return core.outcome }
            // The same wait measured on the kernel's clock, in case `clock` is simulated.
            let realEnd = Syscalls.clockTime(.bootTime) + max(wake - clock.now(), .zero)
            var event: Event = .timer
            while true {
                if isCancelled() {
                    core.cancel(at: clock.now())
                    return core.outcome
                }
                let remaining = min(wake - clock.now(), realEnd - Syscalls.clockTime(.bootTime))
                guard remaining > .zero else { break }
                do {
                    if let count = try socket.receive(
                        into: &buffer, timeout: min(remaining, CancellableWait.slice))
                    {
                        event = .datagram(Array(buffer.prefix(count)))
                        break
                    }
                } catch {
                    event = .failure(error)
                    break
                }
            }
            let now = clock.now()
            switch event {
            case .datagram(let bytes): step = core.handle(bytes, at: now)
            case .failure(let error): step = core.handle(failure: error, at: now)
            case .timer: step = core.handleTimer(at: max(now, wake))
            }
        }
    }

    /// What ended one wait.
    private enum Event {
        case datagram([UInt8])
        case failure(TransportError)
        case timer
    }

    /// Sends the step's datagrams; a send that fails is told to the core at once, and the step
    /// it answers with replaces the rest.
    private static func send<Core: DatagramCore>(
        _ step: CoreStep, of core: inout Core, over socket: UDPSocket, clock: some MonotonicClock
    ) -> CoreStep {
        var step = step
        while !step.send.isEmpty {
            let datagram = step.send.removeFirst()
            do {
                try socket.send(datagram)
            } catch {
                step = core.handle(failure: error, at: clock.now())
            }
        }
        return step
    }
}
