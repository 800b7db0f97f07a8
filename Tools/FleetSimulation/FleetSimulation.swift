import Dispatch
import NetworkClock
import SNTP
import Synchronization

/// The fleet simulator (issue 43): a sample of clients drawn from the ``FleetModel``, each run
/// through every policy on the same events, on simulated clocks (no real time passes, nothing
/// sleeps), scaled to a million clients. Deterministic for a seed: each client's draws come from
/// its own streams (``FleetRandom``), whatever the number of threads.
package struct FleetSimulation: Sendable {
    /// The policies, in the order they are reported.
    package static let policyNames = ["lifecycle", "kronos", "truetime", "timesyncd", "fixed1024", "demand"]

    /// The model.
    package var model = FleetModel()
    /// Clients simulated (the figures are scaled from them to a million).
    package var clients = 10_000
    /// The seed.
    package var seed: UInt64 = 43
    /// The library changes the `demand` policy runs with.
    package var variant = DemandVariant()

    /// The simulation with every default.
    package init() {}

    /// The `demand` policy's configuration: the library's defaults with the model's need.
    package var demandConfiguration: NetworkClock.Configuration { variant.configuration(need: model.need) }

    /// The `lifecycle` policy's configuration: one request a sync (one address, one sample).
    package static var lifecycleConfiguration: NetworkClock.Configuration {
        NetworkClock.Configuration(query: QueryOptions(samples: 1), addressesPerHost: 1)
    }

    /// A fresh instance of every policy for a client.
    package func policies(for schedule: ClientSchedule) -> [any FleetPolicy] {
        [
            LifecyclePolicy(app: LibraryApp(configuration: Self.lifecycleConfiguration)),
            KronosPolicy(),
            TrueTimePolicy(),
            TimesyncdPolicy(bootedAt: schedule.bootedAt),
            Fixed1024Policy(app: LibraryApp(configuration: NetworkClock.Configuration())),
            DemandPolicy(
                app: LibraryApp(configuration: demandConfiguration, usesFacade: true)),
        ]
    }

    /// Client `index`'s schedule.
    package func schedule(ofClient index: Int) -> ClientSchedule {
        var random = FleetRandom(seed: seed, client: index, stream: .schedule)
        return ClientSchedule(model: model, random: &random)
    }

    /// Runs every policy on client `index`; `literal` reads every `now()` call one by one.
    package func simulate(client index: Int, literal: Bool = false) -> [PolicyTally] {
        let schedule = schedule(ofClient: index)
        return policies(for: schedule).enumerated().map { number, policy in
            let random = FleetRandom(seed: seed, client: index, stream: .policy, index: number)
            return PolicyRun(schedule: schedule, model: model, random: random, literal: literal).run(policy)
        }
    }

    /// Runs the whole sample on `threads` threads.
    package func run(threads: Int = 2) -> FleetReport {
        let workers = max(1, min(threads, clients))
        let empty = Self.policyNames.map { _ in
            PolicyTally(days: model.days, bins: model.bins, spikeBin: model.spikeBin)
        }
        let results = Mutex([[PolicyTally]](repeating: empty, count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var sums = empty
            for client in stride(from: worker, to: clients, by: workers) {
                for (index, tally) in simulate(client: client).enumerated() { sums[index].add(tally) }
            }
            results.withLock { $0[worker] = sums }
        }
        var totals = empty
        for sums in results.withLock({ $0 }) {
            for index in totals.indices { totals[index].add(sums[index]) }
        }
        return FleetReport(
            simulation: self, tallies: Array(zip(Self.policyNames, totals)).map { ($0.0, $0.1) })
    }
}
