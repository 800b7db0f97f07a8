import NetClockPlatform
import SNTP
import TimeValues

/// What this machine's loopback offers, for tests that depend on it.
///
/// Machines differ: IPv6 may be disabled or absent, and `/etc/hosts` may map `localhost` to
/// 127.0.0.1 only or to ::1 as well. A test that needs IPv6 or a particular resolution of
/// `localhost` is enabled with one of these and skips with the matching reason elsewhere.
package enum LoopbackEnvironment {
    /// Whether both a UDP and a TCP socket can be bound on `[::1]` (ephemeral ports). False when the
    /// kernel has no IPv6, when IPv6 is disabled (`ipv6.disable=1`, `disable_ipv6` on `lo`), or in a
    /// network namespace without `::1`.
    package static let ipv6LoopbackAvailable: Bool = {
        guard let udp = try? FakeNTPServer(configuration: FakeNTPServer.Configuration(host: "::1")) else {
            return false
        }
        udp.stop()
        guard let tcp = try? HTTPTimeServer(ipv6: true) else { return false }
        tcp.stop()
        return true
    }()

    /// The reason a test needing ``ipv6LoopbackAvailable`` gives when it is skipped.
    package static let ipv6LoopbackUnavailableReason =
        "no IPv6 loopback here: cannot bind UDP and TCP sockets on [::1]"

    /// The address families `localhost` resolves to here (from `/etc/hosts`): `[.ipv4]` on many
    /// machines, `[.ipv4, .ipv6]` with Debian's default `::1 localhost` line; empty if it does not
    /// resolve at all.
    package static let localhostFamilies: Set<SocketAddress.Family> = {
        let addresses = (try? Resolver.resolve("localhost", port: 123)) ?? []
        return Set(addresses.map(\.family))
    }()

    /// Whether `localhost` resolves to `::1` and IPv6 loopback works, so a server on `[::1]` can be
    /// reached by that name.
    package static var localhostReachesIPv6: Bool {
        localhostFamilies.contains(.ipv6) && ipv6LoopbackAvailable
    }

    /// The reason a test needing ``localhostReachesIPv6`` gives when it is skipped.
    package static let localhostWithoutIPv6Reason =
        "localhost does not resolve to a usable ::1 here (no '::1 localhost' in /etc/hosts, or no IPv6)"
}
