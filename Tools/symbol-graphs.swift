// Reads symbol graphs written by `swift-symbolgraph-extract`; run by Tools/api-count.sh and
// Tools/docs.sh with the toolchain's `swift` interpreter.
//
//   swift Tools/symbol-graphs.swift count [--list] LIMIT SYMBOL_LIMIT MODULE.symbols.json [MODULE@OTHER.symbols.json ...]
//       Prints the module's top-level types (type declarations and typealiases whose path has one
//       component) and how many symbols it declares in all the given graphs (its own, those of its
//       extensions to other modules, and those of the lower modules whose types it names), nested
//       types and members included. Exits 1 when there are more than LIMIT top-level types or
//       more than SYMBOL_LIMIT symbols.
//   swift Tools/symbol-graphs.swift undocumented GRAPH.json...
//       Prints every declared symbol without a doc comment as a docc-style warning (members the
//       compiler synthesizes or declares implicitly, such as `hashValue` or an enum's
//       `init(rawValue:)`, have none and are skipped). Exits 1 when any is found.
import Foundation

struct Symbol {
    var kind: String
    var preciseIdentifier: String
    /// For a typealias: the precise identifiers of the types its declaration names.
    var aliasTargets: [String]
    var path: [String]
    var isSynthesized: Bool
    var isDocumented: Bool
    var location: String?
}

struct Graph {
    var module: String
    var isExtensionGraph: Bool
    /// A lower module's own graph, read for the types the module names (api-count.sh writes it as
    /// MODULE@LOWER-declared.symbols.json).
    var isNamedLowerGraph: Bool
    var symbols: [Symbol]

    init(path: String) {
        guard let data = FileManager.default.contents(atPath: path),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let symbols = json["symbols"] as? [[String: Any]]
        else {
            fail("\(path) is not a symbol graph", status: 2)
        }
        module = (json["module"] as? [String: Any])?["name"] as? String ?? "?"
        // MODULE@OTHER.symbols.json holds MODULE's extensions to OTHER's types.
        isExtensionGraph = URL(fileURLWithPath: path).lastPathComponent.contains("@")
        isNamedLowerGraph = path.hasSuffix("-declared.symbols.json")
        self.symbols = symbols.compactMap { symbol in
            let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? ""
            // Extension blocks (-emit-extension-block-symbols) are containers, not declarations.
            guard kind != "swift.extension" else { return nil }
            let precise = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
            let comment = (symbol["docComment"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []
            let location = symbol["location"] as? [String: Any]
            let fragments = symbol["declarationFragments"] as? [[String: Any]] ?? []
            let aliasTargets =
                kind == "swift.typealias"
                ? fragments.compactMap {
                    $0["kind"] as? String == "typeIdentifier" ? $0["preciseIdentifier"] as? String : nil
                }
                : []
            let file = (location?["uri"] as? String).flatMap { URL(string: $0)?.path }
            let line = ((location?["position"] as? [String: Any])?["line"] as? Int).map { $0 + 1 }
            return Symbol(
                kind: kind, preciseIdentifier: precise, aliasTargets: aliasTargets,
                path: symbol["pathComponents"] as? [String] ?? [],
                isSynthesized: precise.contains("::SYNTHESIZED::"),
                isDocumented: comment.contains { !(($0["text"] as? String) ?? "").isEmpty },
                location: file.map { "\($0):\(line ?? 1)" })
        }
    }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("symbol-graphs.swift: \(message)\n".utf8))
    exit(status)
}

func count(_ arguments: [String]) -> Int32 {
    var arguments = arguments
    let list = arguments.first == "--list"
    if list { arguments.removeFirst() }
    guard arguments.count >= 3, let limit = Int(arguments[0]), let symbolLimit = Int(arguments[1]) else {
        fail("usage: count [--list] LIMIT SYMBOL_LIMIT GRAPH.json...", status: 2)
    }
    let typeKinds: Set<String> = [
        "swift.struct", "swift.enum", "swift.class", "swift.protocol", "swift.actor", "swift.typealias",
    ]
    let graphs = arguments.dropFirst(2).map(Graph.init(path:))
    let module = graphs.first { !$0.isExtensionGraph }?.module ?? graphs[0].module
    // A lower module's type that the module names by a typealias counts once, as the typealias;
    // its members count as the module's. The lower module's other types are not the module's API.
    let aliased = Set(graphs.filter { !$0.isNamedLowerGraph }.flatMap(\.symbols).flatMap(\.aliasTargets))
    let declared = graphs.flatMap { graph in
        guard graph.isNamedLowerGraph else { return graph.symbols.filter { !$0.isSynthesized } }
        let named = Set(
            graph.symbols.filter { $0.path.count == 1 && aliased.contains($0.preciseIdentifier) }.map(
                \.path[0]))
        return graph.symbols.filter { $0.path.count > 1 && !$0.isSynthesized && named.contains($0.path[0]) }
    }
    let topLevel = graphs.filter { !$0.isExtensionGraph }.flatMap(\.symbols)
        .filter { $0.path.count == 1 && typeKinds.contains($0.kind) }
        .map { (kind: String($0.kind.dropFirst("swift.".count)), name: $0.path[0]) }
        .sorted { $0.name < $1.name }

    let verdict = topLevel.count > limit ? "OVER the limit of \(limit)" : "limit \(limit)"
    let symbolVerdict =
        declared.count > symbolLimit ? "OVER the limit of \(symbolLimit)" : "limit \(symbolLimit)"
    print(
        "\(module): \(topLevel.count) top-level public types (\(verdict)), \(declared.count) public symbols"
            + " (\(symbolVerdict))")
    if list {
        for type in topLevel {
            print("  \(type.kind.padding(toLength: 9, withPad: " ", startingAt: 0)) \(type.name)")
        }
    } else {
        print("  " + (topLevel.isEmpty ? "(none)" : topLevel.map(\.name).joined(separator: ", ")))
    }
    return topLevel.count > limit || declared.count > symbolLimit ? 1 : 0
}

func undocumented(_ paths: [String]) -> Int32 {
    guard !paths.isEmpty else { fail("usage: undocumented GRAPH.json...", status: 2) }
    var found = 0
    for graph in paths.map(Graph.init(path:)) {
        // Declarations the compiler makes implicitly (an enum's `init(rawValue:)`) have no source
        // location and cannot carry a comment; without any location at all, nothing could be told.
        guard graph.symbols.isEmpty || graph.symbols.contains(where: { $0.location != nil }) else {
            fail("no symbol of \(graph.module) has a source location (no .swiftsourceinfo?)", status: 2)
        }
        for symbol in graph.symbols
        where !symbol.isSynthesized && !symbol.isDocumented && symbol.location != nil {
            found += 1
            let name = ([graph.module] + symbol.path).joined(separator: "/")
            print(
                "\(symbol.location ?? graph.module): warning: \(name) (\(symbol.kind)) has no documentation comment"
            )
        }
    }
    return found > 0 ? 1 : 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "count": exit(count(Array(arguments.dropFirst())))
case "undocumented": exit(undocumented(Array(arguments.dropFirst())))
default: fail("usage: symbol-graphs.swift count|undocumented …", status: 2)
}
