// What identifies the clocks a process reads: the boot they count from (`boot_id`), the time
// namespace's offsets on them (`/proc/self/timens_offsets`) and the machine whose oscillator they
// count (`/etc/machine-id`). Read on slow paths only.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a process's time-namespace offsets could not be read.
package struct TimeNamespaceUnreadable: Error, Sendable, Hashable, CustomStringConvertible {
    /// A sentence for people.
    package var reason: String

    /// An error with its reason.
    package init(_ reason: String) { self.reason = reason }

    /// The reason.
    package var description: String { reason }
}

extension Syscalls {
    /// Where the kernel publishes the current boot's identity on Linux.
    package static let bootIDPath = "/proc/sys/kernel/random/boot_id"
    /// Where a process reads the offsets of its time namespace.
    package static let timeNamespaceOffsetsPath = "/proc/self/timens_offsets"

    /// The current boot's identity from ``bootIDPath``, without surrounding white space; nil where it
    /// cannot be read.
    package static func bootID() -> String? {
        guard case .success(let bytes) = FileSystem.readFile(atPath: bootIDPath, limit: 256) else {
            return nil
        }
        let text = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first
        return text.map(String.init)
    }

    /// Where systemd (and D-Bus, before it) keep the machine's identity.
    package static let machineIDPaths = ["/etc/machine-id", "/var/lib/dbus/machine-id"]

    /// The machine's identity from the first of ``machineIDPaths`` that holds one
    /// (``machineID(parsing:)``); nil where none does.
    package static func machineID() -> String? {
        for path in machineIDPaths {
            guard case .success(let bytes) = FileSystem.readFile(atPath: path, limit: 256),
                let id = machineID(parsing: bytes)
            else { continue }
            return id
        }
        return nil
    }

    /// A machine-id file's identity: 32 lower-case hexadecimal digits, not all zero, before any
    /// white space (machine-id(5)); nil for anything else, e.g. `uninitialized` early in a boot.
    package static func machineID(parsing bytes: [UInt8]) -> String? {
        guard let text = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first,
            text.utf8.count == 32,
            text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
            text.contains(where: { $0 != "0" })
        else { return nil }
        return String(text)
    }

    /// This process's time-namespace offsets (``TimeNamespaceOffsets``), or why they cannot be
    /// read.
    ///
    /// Zero on a kernel without time namespaces (no `/proc/self/ns/time`) and on Darwin. The file
    /// shows the offsets of the namespace the process's *children* get, which is its own unless it
    /// called `unshare(CLONE_NEWTIME)` itself: when `/proc/self/ns/time` and
    /// `/proc/self/ns/time_for_children` differ, the process's own offsets are unreadable.
    package static func timeNamespaceOffsets() -> Result<TimeNamespaceOffsets, TimeNamespaceUnreadable> {
        #if canImport(Glibc)
            let own: String
            switch link(at: "/proc/self/ns/time") {
            case .success(let target): own = target
            case .failure(.noSuchFileOrDirectory):
                // No time namespaces in this kernel, as long as /proc itself is there to say so.
                guard case .success = link(at: "/proc/self/ns/mnt") else {
                    return .failure(
                        TimeNamespaceUnreadable("/proc/self/ns cannot be read (is /proc mounted?)"))
                }
                return .success(.zero)
            case .failure(let code):
                return .failure(TimeNamespaceUnreadable("cannot read /proc/self/ns/time: \(code)"))
            }
            if case .success(let children) = link(at: "/proc/self/ns/time_for_children"), children != own {
                return .failure(
                    TimeNamespaceUnreadable(
                        "this process left its time namespace's offsets behind (unshare --time): "
                            + "\(timeNamespaceOffsetsPath) shows its children's"))
            }
            switch FileSystem.readFile(atPath: timeNamespaceOffsetsPath, limit: 4096) {
            case .success(let bytes):
                guard let offsets = TimeNamespaceOffsets(procText: String(decoding: bytes, as: UTF8.self))
                else {
                    return .failure(
                        TimeNamespaceUnreadable("\(timeNamespaceOffsetsPath) is not in the kernel's format"))
                }
                return .success(offsets)
            case .failure(let failure):
                return .failure(TimeNamespaceUnreadable(failure.reason))
            }
        #else
            return .success(.zero)
        #endif
    }

    /// The target of the symbolic link at `path` (`readlink`).
    private static func link(at path: String) -> Result<String, Errno> {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
            guard let base = pointer.baseAddress else { return -1 }
            return readlink(path, base, pointer.count - 1)
        }
        guard count >= 0 else { return .failure(Errno.current) }
        return .success(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
