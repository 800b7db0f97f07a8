import ClockCore
import NetClockPlatform
import NetworkClock
import TimeValues

/// The machine's lifecycle as the running library sees it: on Linux its refresh loop's monitor
/// hears a resume or a network change and may bring the next sync forward, as
/// ``RefreshSchedule/delay(reactingTo:in:using:)`` says.
extension LibraryApp {
    /// The delay from now to the sync `event` calls for under `schedule`, when the app's process
    /// runs and is not syncing (only a sleeping loop is moved); nil when it calls for none.
    package func delay(
        reactingTo event: ClientEvent.Kind, schedule: RefreshSchedule, sinceLastRequest: Duration?,
        on device: SimulatedDevice, using random: inout FleetRandom
    ) -> Duration? {
        guard let clock = process, !isSyncing else { return nil }
        let clockEvent: ClockEvent
        switch event {
        case .suspend(let duration): clockEvent = .resumed(suspendedFor: .seconds(duration))
        case .networkChange: clockEvent = .networkChanged
        case .launch, .exit, .background, .foreground, .reboot: return nil
        }
        let age = clock.now().flatMap { $0.source == .restored ? nil : $0.age }
        let boundAfter: (Duration) -> Duration? =
            facade.map { facade in { facade.neededBound(after: $0) } } ?? { later in
                clock.estimate(at: device.clock.now() + later)?.errorBound
            }
        let context = RefreshSchedule.LifecycleContext(
            sinceLastRequest: sinceLastRequest, anchorAge: age, boundAfter: boundAfter)
        return schedule.delay(reactingTo: clockEvent, in: context, using: &random)
    }
}
