import LoopbackServers
import Testing

/// Why a test needing IPv6 loopback is skipped (see ``LoopbackEnvironment``).
let noIPv6 = Comment(rawValue: LoopbackEnvironment.ipv6LoopbackUnavailableReason)
