import FleetSimulation

/// The options of `netclock-bench fleet`.
struct FleetOptions {
    /// Print one JSON object instead of the tables.
    var json = false
    /// Print the main table in Markdown instead of the tables.
    var markdown = false
    /// Where to write the SVG plot, if anywhere.
    var svgPath: String?
    /// Threads to simulate on.
    var threads = 2
    /// The simulation: sample size, seed and the demand policy's variant.
    var simulation = FleetSimulation()

    /// A usage error, naming what was wrong.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        usage: netclock-bench fleet [--json|--markdown] [--svg FILE] [--clients N] [--seed N] [--threads N]
                                    [--samples N] [--addresses N] [--suspend-resolution SEC]
                                    [--suspend-tolerance PPM] [--wander-rate PPM_PER_H]
                                    [--wander-limit PPM]
          The fleet simulator (FleetSimulation.md): N sampled clients (default 10000) over two
          simulated days, scaled to a million; every policy on the same events. --json prints one
          object, --markdown the main table, --svg writes the plot of queries per second. The flags after --threads run the
          demand policy on a changed library: its burst and clock settings, the schedule asking for
          the bound along the time base, the frequency history kept across reboots.
        """

    /// Parses the arguments after `fleet`.
    static func parse(_ arguments: [String]) throws(UsageError) -> FleetOptions {
        var options = FleetOptions()
        var remaining = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let value = remaining.popFirst() else {
                throw UsageError(description: "\(flag) needs a value")
            }
            return value
        }
        func number(_ flag: String) throws(UsageError) -> Double {
            let text = try value(flag)
            guard let number = Double(text), number.isFinite, number >= 0 else {
                throw UsageError(description: "\(flag): '\(text)' is not a non-negative number")
            }
            return number
        }
        func count(_ flag: String) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let count = Int(text), count >= 1 else {
                throw UsageError(description: "\(flag): '\(text)' is not a positive whole number")
            }
            return count
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--json": options.json = true
            case "--markdown": options.markdown = true
            case "--svg": options.svgPath = try value(flag)
            case "--clients": options.simulation.clients = try count(flag)
            case "--seed":
                let text = try value(flag)
                guard let seed = UInt64(text) else {
                    throw UsageError(description: "--seed: '\(text)' is not a whole number")
                }
                options.simulation.seed = seed
            case "--threads": options.threads = try count(flag)
            case "--samples": options.simulation.variant.samples = try count(flag)
            case "--addresses": options.simulation.variant.addresses = try count(flag)
            case "--suspend-resolution": options.simulation.variant.suspendResolution = try number(flag)
            case "--suspend-tolerance": options.simulation.variant.suspendTolerancePPM = try number(flag)
            case "--wander-rate": options.simulation.variant.wanderRatePPMPerHour = try number(flag)
            case "--wander-limit": options.simulation.variant.wanderLimitPPM = try number(flag)
            default: throw UsageError(description: "unknown option '\(flag)'")
            }
        }
        return options
    }
}
