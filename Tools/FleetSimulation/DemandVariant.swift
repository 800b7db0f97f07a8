import NetClockPlatform
import NetworkClock

/// Changes to the library that the `demand` policy can be run with, to see what a change would do
/// before it is made: the settings the library already has (the burst, the clock policy). Nil:
/// the library as it is.
package struct DemandVariant: Sendable, Hashable {
    /// Samples per address (`QueryOptions.samples`; default 4).
    package var samples: Int?
    /// Addresses per host (`Configuration.addressesPerHost`; default 4).
    package var addresses: Int?
    /// `ClockPolicy.suspendResolution`, seconds (default 1).
    package var suspendResolution: Double?
    /// `ClockPolicy.suspendTolerancePPM` (default 100).
    package var suspendTolerancePPM: Double?
    /// `ClockPolicy.wanderRatePPMPerHour` (default 10).
    package var wanderRatePPMPerHour: Double?
    /// `ClockPolicy.wanderLimitPPM` (default 10).
    package var wanderLimitPPM: Double?

    /// The library as it is.
    package init() {}

    /// Whether this is the library as it is.
    package var isDefault: Bool { self == DemandVariant() }

    /// The configuration of the `demand` policy's app for `need` seconds.
    package func configuration(need: Double) -> NetworkClock.Configuration {
        var configuration = NetworkClock.Configuration(refresh: .demand(maximumBound: .seconds(need)))
        if let samples { configuration.query.samples = min(max(samples, 1), QueryOptions.maximumBurst) }
        if let addresses { configuration.addressesPerHost = max(addresses, 1) }
        if let suspendResolution { configuration.clock.suspendResolution = .seconds(suspendResolution) }
        if let suspendTolerancePPM { configuration.clock.suspendTolerancePPM = suspendTolerancePPM }
        if let wanderRatePPMPerHour { configuration.clock.wanderRatePPMPerHour = wanderRatePPMPerHour }
        if let wanderLimitPPM { configuration.clock.wanderLimitPPM = wanderLimitPPM }
        return configuration
    }

    /// The command-line flags that give this variant (empty for the library as it is).
    package var flags: [String] {
        var flags: [String] = []
        if let samples { flags.append("--samples \(samples)") }
        if let addresses { flags.append("--addresses \(addresses)") }
        if let suspendResolution { flags.append("--suspend-resolution \(suspendResolution)") }
        if let suspendTolerancePPM { flags.append("--suspend-tolerance \(suspendTolerancePPM)") }
        if let wanderRatePPMPerHour { flags.append("--wander-rate \(wanderRatePPMPerHour)") }
        if let wanderLimitPPM { flags.append("--wander-limit \(wanderLimitPPM)") }
        return flags
    }
}
