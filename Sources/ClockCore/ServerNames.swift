import Synchronization
import TimeValues

/// Interns server names as small integers, so that ``AnchoredClock/now()`` can publish and copy an
/// estimate's server without touching a reference count (which would make concurrent readers
/// contend on one cache line) and without allocating.
///
/// The table only grows, by one entry per distinct server name the process ever anchors to, which
/// keeps every identifier valid for the life of the process. It is capped at ``capacity`` names so
/// that a caller passing a new string each time (a URL with a request ID, say) cannot grow it
/// without bound; later names share one identifier that reads as ``overflowName``.
enum ServerNames {
    /// The most distinct names kept.
    static let capacity = 65_536
    /// What every name past ``capacity`` reads as.
    static let overflowName = "(server name not kept: more than 65536 distinct names)"

    private struct Table {
        var names: [String] = []
        var identifiers: [String: UInt32] = [:]
    }

    private static let table = Mutex(Table())

    /// The identifier for `name`: 0 for `nil`, otherwise a stable positive number.
    static func identifier(for name: String?) -> UInt32 {
        guard let name else { return 0 }
        return table.withLock { table in
            if let existing = table.identifiers[name] { return existing }
            if table.names.count >= capacity {
                if let overflow = table.identifiers[overflowName] { return overflow }
                table.names.append(overflowName)
                let identifier = UInt32(truncatingIfNeeded: table.names.count)
                table.identifiers[overflowName] = identifier
                return identifier
            }
            table.names.append(name)
            let identifier = UInt32(truncatingIfNeeded: table.names.count)
            table.identifiers[name] = identifier
            return identifier
        }
    }

    /// The name for an identifier from ``identifier(for:)``; `nil` for 0 or an unknown identifier.
    static func name(for identifier: UInt32) -> String? {
        guard identifier > 0 else { return nil }
        return table.withLock { table in
            let index = Int(identifier) - 1
            return index < table.names.count ? table.names[index] : nil
        }
    }
}
