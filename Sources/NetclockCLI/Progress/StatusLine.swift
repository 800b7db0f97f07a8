import NetworkClock

/// A transient status line on a terminal: when to draw it, and the bytes that draw and erase it.
///
/// Nothing is drawn until the round has run for ``delay`` (a quick round shows nothing), then at
/// most once per ``minimumInterval`` and only when the text changed. Each frame returns the
/// cursor to the start of the line (`\r`) and erases it (`ESC [2K`) before writing, so the line
/// is redrawn in place; ``erase()`` leaves the line empty, so what is printed next looks exactly
/// as if no status had been shown. Times are durations since the round started, so tests drive
/// it with any clock.
struct StatusLine: Hashable, Sendable {
    /// Carriage return, then erase the whole line.
    static let clear = "\r\u{1B}[2K"

    /// How long a round runs before the line appears.
    var delay: Duration = .milliseconds(500)
    /// The shortest time between two frames (at most ten a second by default).
    var minimumInterval: Duration = .milliseconds(100)
    /// The terminal's width; the text is cut to one column less, so it never wraps (a wrapped
    /// line could not be erased with one erase-line).
    var width = 80

    /// When the last frame was drawn.
    private(set) var lastFrame: Duration?
    /// The text on screen, nil when the line is empty.
    private(set) var shown: String?

    /// The bytes that show `text` at `elapsed`, or nil when nothing should be written now.
    mutating func frame(_ text: String, at elapsed: Duration) -> String? {
        guard elapsed >= delay else { return nil }
        if let lastFrame, elapsed - lastFrame < minimumInterval { return nil }
        let fitted = String(text.prefix(max(1, width - 1)))
        guard fitted != shown else { return nil }
        lastFrame = elapsed
        shown = fitted
        return Self.clear + fitted
    }

    /// The bytes that erase the line, or nil when nothing is shown.
    mutating func erase() -> String? {
        guard shown != nil else { return nil }
        shown = nil
        return Self.clear
    }
}
