/// Which address families server names resolve to.
///
/// The one type for this choice, from the resolver up to the facade, which names it
/// `NetworkClock.AddressFamily`. The raw values are what the CLI prints.
public enum AddressFamily: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// IPv4 and IPv6 addresses, in the resolver's order.
    case any
    /// IPv4 addresses only (`-4`).
    case ipv4
    /// IPv6 addresses only (`-6`).
    case ipv6

    /// `any`, `ipv4` or `ipv6`.
    public var description: String { rawValue }
}
