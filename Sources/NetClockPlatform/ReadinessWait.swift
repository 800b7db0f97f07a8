/// One wait over several connected UDP sockets and a ``SignalPipe``: the I/O loop of a sync round,
/// which keeps a socket per server address and takes the results of work done elsewhere (name
/// lookups, key exchanges) through the pipe.
package enum ReadinessWait {
    /// Waits at most `timeout` (at least one millisecond, at most an hour, on the kernel's
    /// boot-time clock) until a socket has a datagram or an error, or `signal` is signalled.
    /// - Returns: the indices of `sockets` that are ready (empty when only the pipe woke the wait,
    ///   or the time ran out); the pipe's signals are drained.
    /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` when `poll` fails.
    package static func wait(
        on sockets: [UDPSocket], signal: SignalPipe, timeout: Duration
    ) throws(TransportError) -> [Int] {
        let descriptors = sockets.map { $0.pollDescriptor ?? -1 }
        let milliseconds = UDPSocket.milliseconds(max(timeout, .zero))
        switch Syscalls.pollReadable(descriptors + [signal.descriptor], milliseconds: milliseconds) {
        case .success(let ready):
            if ready.last == true { signal.drain() }
            return ready.dropLast().indices.filter { ready[$0] && descriptors[$0] >= 0 }
        case .failure(let code):
            throw .failed("poll", errno: code)
        }
    }
}
