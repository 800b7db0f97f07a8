import NetworkClock

/// A policy that runs the library's own clock (``LibraryApp``): what its `now()` reads is the
/// library clock's, and a sync is drawn and started the same way whatever calls for it.
package protocol LibraryPolicy: FleetPolicy {
    /// The library as the app runs it.
    var app: LibraryApp { get }
}

extension LibraryPolicy {
    /// The library clock's reading.
    package func reading(in run: PolicyRun) -> Reading? { app.reading(on: run.device) }

    /// The library clock's readings.
    package func readings(over seconds: Double, in run: PolicyRun) -> ReadingSpan? {
        app.readings(over: seconds, need: run.model.need, on: run.device)
    }

    /// Draws a sync as the library is configured, counts its requests for `reason`, and starts it.
    func startSync(in run: PolicyRun, reason: String) {
        let outcome = app.outcome(model: run.model, random: &run.random)
        run.sync(outcome, reason: reason)
        app.startSync(outcome, on: run.device)
    }
}
