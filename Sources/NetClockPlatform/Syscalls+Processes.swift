// The running processes, read from /proc, for `netclock set`'s check for another time daemon.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One running process as /proc shows it: its id, its command name (`comm`, at most 15 bytes) and
/// its arguments (`cmdline`).
package struct RunningProcess: Hashable, Sendable {
    /// The process id.
    package var id: Int32
    /// `/proc/PID/comm`: the executable's name, cut to 15 bytes by the kernel.
    package var name: String
    /// `/proc/PID/cmdline`, split at its NUL bytes: the program and its arguments. Empty for a
    /// kernel thread, and for a moment while a process is in `execve` (its new arguments not yet
    /// in place).
    package var arguments: [String]

    /// Creates a process from its parts.
    package init(id: Int32, name: String, arguments: [String]) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}

extension Syscalls {
    /// Every process /proc lists that can be read (others' may vanish or be hidden by `hidepid`) and
    /// has not begun to exit (``isExiting(_:)``); empty where there is no /proc (Darwin).
    package static func runningProcesses() -> [RunningProcess] {
        #if canImport(Glibc)
            guard let directory = opendir("/proc") else { return [] }
            defer { closedir(directory) }
            var processes: [RunningProcess] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard let id = Int32(name), id > 0, !isExiting(id) else { continue }
                guard case .success(let comm) = FileSystem.readFile(atPath: "/proc/\(id)/comm", limit: 64)
                else {
                    continue
                }
                let command =
                    (try? FileSystem.readFile(atPath: "/proc/\(id)/cmdline", limit: 16_384).get()) ?? []
                processes.append(
                    RunningProcess(
                        id: id,
                        name: String(decoding: comm, as: UTF8.self).trimmingNewline(),
                        arguments: arguments(commandLine: command)))
            }
            return processes
        #else
            return []
        #endif
    }

    /// The NUL-terminated strings of a `/proc/PID/cmdline`: none when it is empty.
    static func arguments(commandLine: [UInt8]) -> [String] {
        guard !commandLine.isEmpty else { return [] }
        var arguments = commandLine.split(separator: 0, omittingEmptySubsequences: false)
        if commandLine.last == 0 { arguments.removeLast() }
        return arguments.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `/proc/PID/stat` shows the process exiting (`PF_EXITING` in its flags) or exited (a
    /// zombie, `Z`, or `X`): it runs no code any more, though /proc lists it (its `cmdline` is
    /// already empty). A process /proc cannot show is not called exiting.
    static func isExiting(_ id: Int32) -> Bool {
        guard case .success(let stat) = FileSystem.readFile(atPath: "/proc/\(id)/stat", limit: 4_096),
            let close = stat.lastIndex(of: UInt8(ascii: ")"))
        else { return false }
        // After the name: state, ppid, pgrp, session, tty_nr, tpgid, flags, …
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 6 else { return false }
        if fields[0].elementsEqual("Z".utf8) || fields[0].elementsEqual("X".utf8) { return true }
        let pfExiting: UInt32 = 0x4
        return UInt32(String(decoding: fields[6], as: UTF8.self)).map { $0 & pfExiting != 0 } ?? false
    }
}

extension String {
    /// The string without one trailing newline (`comm` ends with one).
    fileprivate func trimmingNewline() -> String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}
