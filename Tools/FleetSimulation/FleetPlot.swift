import Foundation

/// The plot of a fleet run: every policy's queries per second per million clients over the days
/// simulated, on a log scale, as an SVG document. Each point is the busiest of `pointBins` bins, so
/// that a one-minute spike shows at its height.
package struct FleetPlot: Sendable {
    /// The report plotted.
    package var report: FleetReport
    /// Bins per plotted point.
    package var pointBins = 5

    /// A plot of `report`.
    package init(report: FleetReport) {
        self.report = report
    }

    static let colours = [
        "lifecycle": "#d62728", "kronos": "#ff7f0e", "truetime": "#9467bd", "timesyncd": "#7f7f7f",
        "fixed1024": "#1f77b4", "demand": "#2ca02c",
    ]

    /// The SVG document.
    package func svg() -> String {
        let (width, height) = (960.0, 480.0)
        let (left, right, top, bottom) = (70.0, 130.0, 40.0, 50.0)
        let hours = Double(report.simulation.model.days) * 24
        let series = report.tallies.map { (name: $0.name, points: points(of: $0.name)) }
        let highest = series.flatMap(\.points).max() ?? 1
        let decades = max(1, Int(log10(max(highest, 10)).rounded(.up)))
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ hour: Double) -> Double { left + hour / hours * plotWidth }
        func y(_ value: Double) -> Double {
            top + plotHeight * (1 - log10(max(value, 1)) / Double(decades))
        }
        var lines: [String] = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\""
                + " viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">",
            "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>",
            text(
                left, 22,
                "Queries per second per million clients (busiest minute of every \(pointBins)), "
                    + "\(report.simulation.clients) clients, seed \(report.simulation.seed)", weight: "bold"),
        ]
        for decade in 0...decades {
            let value = y(pow(10, Double(decade)))
            lines.append(line(left, value, left + plotWidth, value, colour: "#dddddd"))
            lines.append(text(left - 8, value + 4, Self.label(decade), anchor: "end"))
        }
        for hour in stride(from: 0.0, through: hours, by: 4) {
            lines.append(line(x(hour), top, x(hour), top + plotHeight, colour: "#eeeeee"))
            lines.append(text(x(hour), top + plotHeight + 18, "\(Int(hour))", anchor: "middle"))
        }
        lines.append(text(left + plotWidth / 2, height - 10, "hour of the simulation", anchor: "middle"))
        lines.append(line(left, top + plotHeight, left + plotWidth, top + plotHeight, colour: "#000000"))
        lines.append(line(left, top, left, top + plotHeight, colour: "#000000"))
        let step = hours / Double(max(series.first?.points.count ?? 1, 1))
        for (index, entry) in series.enumerated() {
            let colour = Self.colours[entry.name] ?? "#000000"
            let coordinates = entry.points.enumerated().map { point, value in
                Self.number(x((Double(point) + 0.5) * step)) + "," + Self.number(y(value))
            }
            lines.append(
                "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\""
                    + coordinates.joined(separator: " ") + "\"/>")
            let legend = top + 14 + Double(index) * 18
            lines.append(line(width - right + 12, legend - 4, width - right + 36, legend - 4, colour: colour))
            lines.append(text(width - right + 42, legend, entry.name))
        }
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The busiest bin of every `pointBins`.
    private func points(of policy: String) -> [Double] {
        let bins = report.series(of: policy)
        return stride(from: 0, to: bins.count, by: pointBins).map { start in
            bins[start..<min(start + pointBins, bins.count)].max() ?? 0
        }
    }

    /// `value` with one decimal.
    private static func number(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    private static func label(_ decade: Int) -> String {
        ["1", "10", "100", "1k", "10k", "100k", "1M", "10M"][min(decade, 7)]
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: String) -> String {
        "<line x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\""
            + " y2=\"\(Self.number(y2))\" stroke=\"\(colour)\"/>"
    }

    private func text(
        _ x: Double, _ y: Double, _ content: String, anchor: String = "start", weight: String = "normal"
    ) -> String {
        "<text x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" text-anchor=\"\(anchor)\""
            + " font-weight=\"\(weight)\">\(content)</text>"
    }
}
