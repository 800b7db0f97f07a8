import NetClockPlatform

/// The file `watch --metrics` keeps: rewritten whole after every round through a temporary file in
/// the same directory renamed into place, so node_exporter's textfile collector never reads half
/// of it. Mode 0644: the exporter usually runs as another user. The temporary file's name
/// (`.NAME.PID.NONCE.tmp`) does not end in `.prom`, so the collector never reads it either.
enum MetricsFile {
    /// Writes `text` to `path`; returns why it could not, or nil.
    static func write(_ text: String, to path: String) -> String? {
        FileSystem.writeAtomically(Array(text.utf8), toPath: path, mode: 0o644)?.reason
    }
}
