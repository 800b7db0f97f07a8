import Foundation
import NetClockPlatform
import SNTP

/// What the CLI needs to know about standard error to show a live status line on it.
enum Terminal {
    /// Whether standard error is a terminal that understands `\r` and erase-line (not a pipe, a
    /// file, or `TERM=dumb`).
    static var standardErrorShowsStatus: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// The width of the terminal on standard error in columns, when it reports one.
    static var standardErrorColumns: Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
