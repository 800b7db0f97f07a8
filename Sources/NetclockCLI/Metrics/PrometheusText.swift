/// Prometheus' text exposition format (version 0.0.4), as node_exporter's textfile collector reads
/// it: per metric family a `# HELP` and a `# TYPE` line, then its samples, `name{label="value"} 1.5`.
///
/// Label values escape `\`, `"` and newlines; HELP text escapes `\` and newlines. Families without
/// samples are left out.
package struct PrometheusText: Sendable {
    /// A metric family's type.
    package enum Kind: String, Sendable {
        /// A value that goes up and down.
        case gauge
        /// A count that only grows (named `…_total`).
        case counter
    }

    /// One sample: its labels, in order, and its value.
    package struct Sample: Hashable, Sendable {
        /// Label names and values.
        package var labels: [(name: String, value: String)]
        /// The value.
        package var value: Double

        /// A sample with `labels`.
        package init(_ value: Double, labels: [(name: String, value: String)] = []) {
            self.value = value
            self.labels = labels
        }

        package static func == (lhs: Sample, rhs: Sample) -> Bool {
            lhs.value == rhs.value && lhs.labels.elementsEqual(rhs.labels) { $0 == $1 }
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(value)
            for label in labels {
                hasher.combine(label.name)
                hasher.combine(label.value)
            }
        }
    }

    /// The text so far.
    package private(set) var text = ""

    /// An empty exposition.
    package init() {}

    /// Appends the family `name` with its HELP and TYPE lines and `samples`; nothing when there
    /// are none. Samples with the same labels as an earlier one are left out (a duplicate series
    /// would make the whole file unreadable to node_exporter).
    package mutating func append(_ name: String, _ kind: Kind, help: String, _ samples: [Sample]) {
        var seen: Set<[String]> = []
        let unique = samples.filter { seen.insert($0.labels.flatMap { [$0.name, $0.value] }).inserted }
        guard !unique.isEmpty else { return }
        text += "# HELP \(name) \(Self.escapedHelp(help))\n"
        text += "# TYPE \(name) \(kind.rawValue)\n"
        for sample in unique {
            text += name
            if !sample.labels.isEmpty {
                let labels = sample.labels.map { "\($0.name)=\"\(Self.escapedLabelValue($0.value))\"" }
                text += "{" + labels.joined(separator: ",") + "}"
            }
            text += " " + Self.number(sample.value) + "\n"
        }
    }

    /// Appends a family of one sample without labels.
    package mutating func append(_ name: String, _ kind: Kind, help: String, _ value: Double?) {
        append(name, kind, help: help, value.map { [Sample($0)] } ?? [])
    }

    /// A label value with `\`, `"` and line feeds escaped.
    package static func escapedLabelValue(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// HELP text with `\` and line feeds escaped.
    package static func escapedHelp(_ help: String) -> String {
        var escaped = ""
        for scalar in help.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A value as Go's `ParseFloat` reads it: integers without a fraction, the shortest
    /// round-trip digits otherwise, `+Inf`, `-Inf`, `NaN`.
    package static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
