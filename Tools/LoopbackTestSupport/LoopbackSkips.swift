import LoopbackServers
import Testing

/// Why a test needing IPv6 loopback is skipped (see ``LoopbackEnvironment``).
package let noIPv6 = Comment(rawValue: LoopbackEnvironment.ipv6LoopbackUnavailableReason)

/// Why a test needing `localhost` to reach ::1 is skipped (see ``LoopbackEnvironment``).
package let localhostWithoutIPv6 = Comment(rawValue: LoopbackEnvironment.localhostWithoutIPv6Reason)
