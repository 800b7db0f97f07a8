import NetworkClock
import SNTP

/// The anchor file `sync` writes and `now` reads: `--state FILE`, or the XDG cache default.
enum AnchorFileLocation {
    static func store(for options: QueryCommandOptions) -> Result<AnchorStore, AnchorStoreError> {
        if let path = options.statePath {
            return .success(AnchorStore(path: path))
        }
        do {
            return .success(try AnchorStore())
        } catch {
            return .failure(error)
        }
    }
}
