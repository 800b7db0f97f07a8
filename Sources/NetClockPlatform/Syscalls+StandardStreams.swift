// Standard output and error for the command line: unbuffered writes and what the terminal on
// them is. (Foundation's FileHandle is not in FoundationEssentials, which is all the shipping
// modules import.)

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Syscalls {
    /// A standard stream of the process.
    package enum StandardStream: Sendable {
        /// Standard output (descriptor 1).
        case output
        /// Standard error (descriptor 2).
        case error

        var descriptor: Int32 {
            switch self {
            case .output: STDOUT_FILENO
            case .error: STDERR_FILENO
            }
        }
    }

    /// Writes `text`'s UTF-8 bytes to `stream` at once, unbuffered (a script reading a pipe sees
    /// them immediately), resuming after short writes and signals. A stream that fails (a closed
    /// descriptor, a full disk) drops the rest: there is nowhere left to report it.
    package static func write(_ text: String, to stream: StandardStream) {
        var text = text
        text.withUTF8 { bytes in
            var rest = UnsafeRawBufferPointer(bytes)
            while !rest.isEmpty {
                let result = valueOrErrno {
                    #if canImport(Glibc)
                        Glibc.write(stream.descriptor, rest.baseAddress, rest.count)
                    #else
                        Darwin.write(stream.descriptor, rest.baseAddress, rest.count)
                    #endif
                }
                guard case .success(let written) = result, written > 0 else { return }
                rest = UnsafeRawBufferPointer(rebasing: rest[written...])
            }
        }
    }

    /// Whether `stream` is a terminal (`isatty`), not a pipe or a file.
    package static func isTerminal(_ stream: StandardStream) -> Bool {
        isatty(stream.descriptor) == 1
    }

    /// The width in columns of the terminal on `stream` (`TIOCGWINSZ`), when it reports one.
    package static func terminalColumns(of stream: StandardStream) -> Int? {
        var size = winsize()
        guard ioctl(stream.descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
