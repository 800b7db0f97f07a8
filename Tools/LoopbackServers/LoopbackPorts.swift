#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import NetClockPlatform

/// Loopback ports and private directories for the real peers tests and benchmarks start (chronyd,
/// ntpsec, node_exporter, …): free ports below the ephemeral range, probes of a bind or a TCP
/// listener, and mode-0700 directories.
package enum LoopbackPorts {
    /// A failure to find a port or make a directory.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// A new directory under the temporary directory, mode 0700 (`mkdtemp`), as chronyd demands for
    /// the directory of its command socket.
    package static func makePrivateTemporaryDirectory(prefix: String) throws -> String {
        var base = NSTemporaryDirectory()
        if base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return mkdtemp(start) != nil
        }
        guard made else { throw Failure("mkdtemp failed: errno \(errno)") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Binds a UDP socket (a TCP one with `tcp`) to `host`:`port` and closes it at once: 0 when that
    /// works, else the errno (`EACCES` for a port below 1024 without privileges, `EADDRINUSE`,
    /// `EADDRNOTAVAIL` when the host has no such address, e.g. no IPv6 loopback).
    package static func bindProbe(host: String, port: UInt16, tcp: Bool = false) -> Int32 {
        withSocket(host: host, port: port, tcp: tcp) { descriptor, address, length in
            bind(descriptor, address, length) == 0 ? 0 : errno
        }
    }

    /// Whether a TCP connection to `host`:`port` is accepted (a listener is there); closed at once.
    package static func tcpConnects(host: String, port: UInt16) -> Bool {
        withSocket(host: host, port: port, tcp: true) { descriptor, address, length in
            connect(descriptor, address, length) == 0 ? 0 : errno
        } == 0
    }

    /// Opens a socket of `host`'s family, runs `body` with it and `host`:`port` as a `sockaddr`, and
    /// closes it; `body`'s result, or the errno of a failed `socket` (`EINVAL` for a bad address).
    private static func withSocket(
        host: String, port: UInt16, tcp: Bool,
        _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        guard let address = SocketAddress(numericHost: host, port: port) else { return EINVAL }
        #if canImport(Glibc)
            let type = Int32((tcp ? SOCK_STREAM : SOCK_DGRAM).rawValue)
        #else
            let type = tcp ? SOCK_STREAM : SOCK_DGRAM
        #endif
        let descriptor = socket(address.familyConstant, type, 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        return address.withSockAddr { body(descriptor, $0, $1) }
    }

    /// A UDP port free on every host in `hosts`, chosen at random in 20000–32767: below Linux's
    /// ephemeral range (32768–60999), so the port-0 sockets of tests running in parallel never take
    /// it between this probe and the bind of the program it is meant for.
    package static func freeUDPPort(on hosts: [String]) throws -> UInt16 {
        try freePort(on: hosts, tcp: false)
    }

    /// The same for a TCP listening port (e.g. NTS-KE's), other than any port in `excluding`.
    package static func freeTCPPort(on hosts: [String], excluding: Set<UInt16> = []) throws -> UInt16 {
        try freePort(on: hosts, tcp: true, excluding: excluding)
    }

    private static func freePort(on hosts: [String], tcp: Bool, excluding: Set<UInt16> = []) throws -> UInt16
    {
        for _ in 0..<64 {
            let port = UInt16.random(in: 20_000...32_767)
            guard !excluding.contains(port) else { continue }
            if hosts.allSatisfy({ bindProbe(host: $0, port: port, tcp: tcp) == 0 }) { return port }
        }
        throw Failure("no free \(tcp ? "TCP" : "UDP") port in 20000–32767 on \(hosts)")
    }
}
