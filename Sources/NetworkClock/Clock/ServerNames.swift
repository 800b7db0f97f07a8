import Synchronization

/// Interns server names as small integers, so that ``AnchoredClock/now()`` can publish and copy an
/// estimate's server without touching a reference count (which would make concurrent readers
/// contend on one cache line) and without allocating.
///
/// The table only grows, by one entry per distinct server name the process ever anchors to, which
/// keeps every identifier valid for the life of the process.
enum ServerNames {
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
