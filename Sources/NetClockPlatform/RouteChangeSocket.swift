#if canImport(Glibc)
    import CKernelClock

    /// An rtnetlink socket that hears the kernel announce address and route changes (IPv4 and IPv6:
    /// an interface that gains or loses an address, a default route that comes or goes), in the
    /// network namespace of the thread that opened it. It sends nothing; it only listens to the
    /// multicast groups every process may join.
    package final class RouteChangeSocket: Sendable {
        private let descriptor: FileDescriptor

        /// The groups joined: addresses and routes, IPv4 and IPv6. Links are left out: a link that
        /// comes up matters once it has an address and a route, and some wireless drivers announce
        /// link changes many times a second.
        static let groups =
            UInt32(RTMGRP_IPV4_IFADDR) | UInt32(RTMGRP_IPV6_IFADDR) | UInt32(RTMGRP_IPV4_ROUTE)
            | UInt32(RTMGRP_IPV6_ROUTE)

        /// The message types that are a change: an address or a route added or removed.
        static let changeTypes: Set<UInt16> = [
            UInt16(RTM_NEWADDR), UInt16(RTM_DELADDR), UInt16(RTM_NEWROUTE), UInt16(RTM_DELROUTE),
        ]

        /// Opens the socket and joins the groups.
        /// - Throws: ``TransportError/systemCall(operation:errno:reason:)`` naming `rtnetlink`.
        package init() throws(TransportError) {
            switch Syscalls.routeSocket(groups: Self.groups) {
            case .success(let fd): descriptor = FileDescriptor(taking: fd)
            case .failure(let code): throw .failed("rtnetlink", errno: code)
            }
        }

        /// The descriptor a waiter polls.
        var pollDescriptor: Int32 { descriptor.rawValue }

        /// Reads every announcement waiting, without blocking: whether any was a change, or the
        /// kernel dropped some because the buffer was full (`ENOBUFS`: changes were lost, so one is
        /// assumed).
        func drain() -> Bool {
            var changed = false
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let received = buffer.withUnsafeMutableBytes { Syscalls.receive(descriptor.rawValue, $0) }
                switch received {
                case .success(let count) where count > 0:
                    let changes = buffer.withUnsafeBytes {
                        Self.changeCount(in: UnsafeRawBufferPointer(rebasing: $0[..<count]))
                    }
                    changed = changed || changes > 0
                case .failure(.noBufferSpace):
                    changed = true
                default:
                    return changed
                }
            }
        }

        /// The number of address and route changes among the netlink messages in `bytes` (one
        /// datagram: headers of 16 bytes in host byte order, each message padded to 4 bytes). A
        /// message whose length is shorter than its header or runs past the end ends the count.
        package static func changeCount(in bytes: UnsafeRawBufferPointer) -> Int {
            let header = 16
            var (offset, count) = (0, 0)
            while bytes.count - offset >= header {
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
                guard length >= header, length <= bytes.count - offset else { break }
                if changeTypes.contains(type) { count += 1 }
                offset += (length + 3) & ~3
            }
            return count
        }
    }
#endif
