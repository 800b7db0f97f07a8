// The fake server's only contact with the C library's socket API. SNTP's own conversions are internal
// to that module, so the few the server needs are repeated here.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import NetClockPlatform
import SNTP
import Synchronization

extension FakeNTPServer {
    /// A non-blocking UDP socket bound to a local address. It owns its descriptor: ``close()`` (or
    /// `deinit`) releases it exactly once.
    final class DatagramSocket: Sendable {
        /// The descriptor; valid until ``close()``.
        let descriptor: Int32
        /// The address the socket is bound to, with the actual port.
        let localAddress: SocketAddress
        private let isClosed = Atomic<Bool>(false)

        /// The outcome of one non-blocking receive.
        enum Received {
            /// A datagram of `count` bytes (at most the buffer's size) from `sender`.
            case datagram(count: Int, sender: SocketAddress)
            /// Nothing waiting.
            case empty
            /// A datagram or error that is not worth reporting (e.g. an ICMP error); try again.
            case ignored
        }

        /// Opens a UDP socket and binds it to `address`.
        init(binding address: SocketAddress) throws(StartError) {
            let family = address.family == .ipv4 ? AF_INET : AF_INET6
            #if canImport(Glibc)
                let type =
                    Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            #else
                let type = SOCK_DGRAM
            #endif
            let fd = socket(family, type, 0)
            guard fd >= 0 else {
                let code = errno
                throw StartError(.systemCallFailed, "socket: \(describe(code))", systemError: code)
            }
            let bound = address.withSockAddr { bind(fd, $0, $1) }
            guard bound == 0 else {
                let code = errno
                closeDescriptor(fd)
                throw StartError(
                    .systemCallFailed, "bind \(address): \(describe(code))", systemError: code)
            }
            guard let local = Self.localAddress(of: fd) else {
                let code = errno
                closeDescriptor(fd)
                throw StartError(.systemCallFailed, "getsockname: \(describe(code))", systemError: code)
            }
            self.descriptor = fd
            self.localAddress = local
        }

        deinit { close() }

        /// Releases the descriptor; later calls do nothing.
        func close() {
            guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            closeDescriptor(descriptor)
        }

        /// Reads one waiting datagram into `buffer`, without blocking.
        func receive(into buffer: inout [UInt8]) -> Received {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &storage) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                    }
                }
            }
            if count < 0 {
                let code = errno
                return code == EAGAIN || code == EWOULDBLOCK ? .empty : .ignored
            }
            guard let sender = SocketAddress(storage: storage, length: length) else { return .ignored }
            return .datagram(count: count, sender: sender)
        }

        /// Sends `bytes` to `destination`; returns 0 or the errno of the failure.
        func send(_ bytes: [UInt8], to destination: SocketAddress) -> Int32 {
            while true {
                let sent = bytes.withUnsafeBytes { raw in
                    destination.withSockAddr {
                        sendto(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0, $1)
                    }
                }
                if sent >= 0 { return 0 }
                let code = errno
                if code != EINTR { return code }
            }
        }

        private static func localAddress(of fd: Int32) -> SocketAddress? {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            return result == 0 ? SocketAddress(storage: storage, length: length) : nil
        }
    }

    /// A pair of connected datagram sockets that wakes the server thread out of `poll` when another
    /// thread asks it to stop.
    final class WakeChannel: Sendable {
        /// The end the server thread polls.
        let readDescriptor: Int32
        private let writeDescriptor: Int32
        private let isClosed = Atomic<Bool>(false)

        init() throws(StartError) {
            var pair: [Int32] = [-1, -1]
            #if canImport(Glibc)
                let type =
                    Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            #else
                let type = SOCK_DGRAM
            #endif
            guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
                let code = errno
                throw StartError(.systemCallFailed, "socketpair: \(describe(code))", systemError: code)
            }
            self.readDescriptor = pair[0]
            self.writeDescriptor = pair[1]
        }

        deinit { close() }

        /// Makes the read end readable.
        func wake() {
            var byte: UInt8 = 1
            _ = send(writeDescriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        }

        /// Empties the read end.
        func drain() {
            var buffer = [UInt8](repeating: 0, count: 16)
            while buffer.withUnsafeMutableBytes({
                recv(readDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }) > 0 {}
        }

        /// Releases both descriptors; later calls do nothing.
        func close() {
            guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
            closeDescriptor(readDescriptor)
            closeDescriptor(writeDescriptor)
        }
    }
}

/// A readable description of an errno value.
private func describe(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}

/// Closes a descriptor. Never retried on `EINTR`: on Linux the descriptor is released regardless.
private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(fd)
    #else
        _ = Darwin.close(fd)
    #endif
}
