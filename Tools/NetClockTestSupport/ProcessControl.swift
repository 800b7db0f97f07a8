// Process-wide calls for our command-line tools (`fake-ntp-server`), kept with the other
// server-side libc calls of the test tools, outside the shipping modules.

import NetClockPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard error, exit status and the stop signals (`SIGINT`, `SIGTERM`) for a command-line tool
/// that waits for them without a signal handler.
package enum ProcessControl {
    /// Writes `line` and a newline to standard error, unbuffered (with `write`: the C `stderr`
    /// global is not concurrency-safe).
    package static func writeError(_ line: String) {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let result = bytes.withUnsafeBytes { raw in
                Syscalls.valueOrErrno { write(STDERR_FILENO, raw.baseAddress, raw.count) }
            }
            guard case .success(let written) = result, written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Flushes standard output, so that a script reading it through a pipe sees what was printed.
    package static func flushStandardOutput() {
        _ = fflush(nil)
    }

    /// Ends the process with `status`.
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
            Glibc.exit(status)
        #else
            Darwin.exit(status)
        #endif
    }

    /// Blocks `SIGINT` and `SIGTERM` on the calling thread. Call it before starting other threads:
    /// they inherit the mask, so the signals stay pending until ``waitForStopSignal(timeout:)``
    /// takes them.
    package static func blockStopSignals() {
        var signals = stopSignals
        _ = pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits up to `timeout` for a blocked `SIGINT` or `SIGTERM`; true when one arrived.
    package static func waitForStopSignal(timeout: Duration) -> Bool {
        var signals = stopSignals
        #if canImport(Glibc)
            let (seconds, attoseconds) = timeout.components
            var wait = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            let signal = sigtimedwait(&signals, nil, &wait)
            return signal == SIGINT || signal == SIGTERM
        #else
            // Darwin has no sigtimedwait: look for a pending stop signal, take it with sigwait.
            var pending = sigset_t()
            if sigpending(&pending) == 0,
                sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1
            {
                var signal: Int32 = 0
                return sigwait(&signals, &signal) == 0
            }
            Syscalls.sleep(timeout)
            return false
        #endif
    }

    /// The set {`SIGINT`, `SIGTERM`}.
    private static var stopSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }
}
