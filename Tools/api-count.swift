// Summarises symbol graphs written by `swift-symbolgraph-extract`; run by Tools/api-count.sh.
//
//   swift Tools/api-count.swift [--list] LIMIT MODULE.symbols.json [MODULE@OTHER.symbols.json ...]
//
// Prints the module's top-level types (type declarations and typealiases whose path has one
// component) and how many symbols it declares in all the given graphs (its own and those of its
// extensions to other modules). Exits 1 when there are more than LIMIT top-level types.
import Foundation

let typeKinds: Set<String> = [
    "swift.struct", "swift.enum", "swift.class", "swift.protocol", "swift.actor", "swift.typealias",
]

var arguments = Array(CommandLine.arguments.dropFirst())
let list = arguments.first == "--list"
if list { arguments.removeFirst() }
guard arguments.count >= 2, let limit = Int(arguments[0]) else {
    FileHandle.standardError.write(Data("usage: api-count.swift [--list] LIMIT GRAPH.json...\n".utf8))
    exit(2)
}

var module = "?"
var symbolCount = 0
var topLevel: [(kind: String, name: String)] = []
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path),
        let graph = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let symbols = graph["symbols"] as? [[String: Any]]
    else {
        FileHandle.standardError.write(Data("api-count.swift: \(path) is not a symbol graph\n".utf8))
        exit(2)
    }
    let isOwnGraph = !path.contains("@")
    if isOwnGraph, let name = (graph["module"] as? [String: Any])?["name"] as? String { module = name }
    for symbol in symbols {
        let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? ""
        // Extension blocks (-emit-extension-block-symbols) are containers, not declarations.
        if kind == "swift.extension" { continue }
        symbolCount += 1
        let components = symbol["pathComponents"] as? [String] ?? []
        if isOwnGraph, components.count == 1, typeKinds.contains(kind) {
            topLevel.append((String(kind.dropFirst("swift.".count)), components[0]))
        }
    }
}
topLevel.sort { $0.name < $1.name }

let verdict = topLevel.count > limit ? "OVER the limit of \(limit)" : "limit \(limit)"
print("\(module): \(topLevel.count) top-level public types (\(verdict)), \(symbolCount) public symbols")
if list {
    for type in topLevel { print("  \(type.kind.padding(toLength: 9, withPad: " ", startingAt: 0)) \(type.name)") }
} else {
    print("  " + (topLevel.isEmpty ? "(none)" : topLevel.map(\.name).joined(separator: ", ")))
}
exit(topLevel.count > limit ? 1 : 0)
