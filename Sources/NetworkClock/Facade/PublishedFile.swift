import NetClockPlatform

/// A file written whole for other users to read (mode 0644): `watch --metrics`' textfile for
/// node_exporter, a Roughtime malfeasance report. It is written to a temporary file in the same
/// directory (`.NAME.PID.NONCE.tmp`) and renamed into place, so a reader never sees half of it.
package enum PublishedFile {
    /// Writes `bytes` to `path`; returns why it could not, or nil.
    package static func write(_ bytes: [UInt8], to path: String) -> String? {
        FileSystem.writeAtomically(bytes, toPath: path, mode: 0o644)?.reason
    }
}
