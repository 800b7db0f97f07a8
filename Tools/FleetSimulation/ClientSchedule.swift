/// One client's days, drawn from the model: its oscillator and every event (sessions, switches,
/// suspends, network changes, reboots), in order. The FleetSimulation article, "The model", says
/// how each is drawn.
package struct ClientSchedule: Sendable {
    /// The oscillator's frequency error at the start, in ppm (positive: fast).
    package var oscillatorPPM: Double
    /// How fast it wanders, in ppm per day.
    package var wanderPPMPerDay: Double
    /// When the device last booted before the simulation (seconds, not after 0).
    package var bootedAt: Double
    /// The events, in order.
    package var events: [ClientEvent]

    /// The oscillator's frequency error at `time`, in ppm.
    package func ppm(at time: Double) -> Double {
        oscillatorPPM + wanderPPMPerDay * time / FleetModel.day
    }

    /// A schedule with the given parts (for tests).
    package init(oscillatorPPM: Double, wanderPPMPerDay: Double, bootedAt: Double, events: [ClientEvent]) {
        self.oscillatorPPM = oscillatorPPM
        self.wanderPPMPerDay = wanderPPMPerDay
        self.bootedAt = bootedAt
        self.events = events.sorted()
    }

    /// A client drawn from `model` with `random`.
    package init(model: FleetModel, random: inout FleetRandom) {
        oscillatorPPM = random.uniform(-model.oscillatorPPM, model.oscillatorPPM)
        wanderPPMPerDay = random.uniform(-model.wanderPPMPerDay, model.wanderPPMPerDay)
        bootedAt = -random.uniform(0, FleetModel.day)
        let end = Double(model.days) * FleetModel.day
        var sessions: [Session] = []
        for day in 0..<model.days {
            let start = Double(day) * FleetModel.day
            for _ in 0..<random.poisson(mean: model.launchesPerDay) {
                sessions.append(Session(at: start + Self.diurnalTime(model, &random), model, &random))
            }
            if random.unit() < model.spikeFraction {
                let at = start + model.spikeHour * 3600 + random.uniform(0, model.spikeWindow)
                sessions.append(Session(at: at, model, &random))
            }
        }
        let processes = Self.union(sessions.map { ($0.start, $0.end) }, until: end)
        let foreground = Self.union(sessions.flatMap(\.foreground), until: end)
        var events: [ClientEvent] = []
        for (start, stop) in processes {
            events.append(ClientEvent(time: start, kind: .launch))
            events.append(ClientEvent(time: stop, kind: .exit))
        }
        let starts = Set(processes.map(\.0))
        let stops = Set(processes.map(\.1))
        for (start, stop) in foreground {
            if !starts.contains(start) { events.append(ClientEvent(time: start, kind: .foreground)) }
            if !stops.contains(stop) { events.append(ClientEvent(time: stop, kind: .background)) }
        }
        // Reboots and suspends only while the app is not running: one that falls in a session
        // waits for its end.
        func outside(_ time: Double) -> Double {
            processes.first { $0.0 <= time && time < $0.1 }?.1 ?? time
        }
        var reboots: [Double] = []
        for day in 0..<model.days {
            for _ in 0..<model.rebootsPerDay {
                let time = outside(Double(day) * FleetModel.day + random.uniform(0, FleetModel.day))
                if time < end { reboots.append(time) }
            }
        }
        var suspends: [(Double, Double)] = []
        for day in 0..<model.days {
            for _ in 0..<model.suspendsPerDay {
                let start = outside(Double(day) * FleetModel.day + random.uniform(0, FleetModel.day))
                let length = min(
                    max(random.logNormal(median: model.suspendMedian, sigma: model.suspendSigma), 60), 43_200)
                // A launch wakes the device; a reboot ends the suspend.
                let cut = (processes.map(\.0) + reboots).filter { $0 > start }.min() ?? end
                let stop = min(start + length, cut, end)
                if stop - start >= 1 { suspends.append((start, stop)) }
            }
        }
        suspends = Self.union(suspends, until: end)
        for (start, stop) in suspends {
            events.append(ClientEvent(time: start, kind: .suspend(duration: stop - start)))
        }
        events += reboots.map { ClientEvent(time: $0, kind: .reboot) }
        for day in 0..<model.days {
            for _ in 0..<model.networkChangesPerDay {
                var time = Double(day) * FleetModel.day + Self.diurnalTime(model, &random)
                // A change during a suspend is seen on resume.
                if let suspend = suspends.first(where: { $0.0 < time && time < $0.1 }) { time = suspend.1 }
                if time < end { events.append(ClientEvent(time: time, kind: .networkChange)) }
            }
        }
        self.events = events.sorted()
    }

    /// A time of day drawn at the diurnal rate (rejection sampling).
    static func diurnalTime(_ model: FleetModel, _ random: inout FleetRandom) -> Double {
        while true {
            let time = random.uniform(0, FleetModel.day)
            if random.unit() * model.diurnalPeak < model.diurnalRate(atSecondOfDay: time) { return time }
        }
    }

    /// The union of `intervals`, in order, cut at `end`.
    static func union(_ intervals: [(Double, Double)], until end: Double) -> [(Double, Double)] {
        var merged: [(Double, Double)] = []
        for (start, stop) in intervals.sorted(by: { $0.0 < $1.0 }) where start < end {
            let stop = min(stop, end)
            if let last = merged.last, start <= last.1 {
                merged[merged.count - 1].1 = max(last.1, stop)
            } else {
                merged.append((start, stop))
            }
        }
        return merged
    }

    /// One launch's session: foreground stretches split by background spells.
    private struct Session {
        var start: Double
        var foreground: [(Double, Double)] = []
        var end: Double { foreground.last?.1 ?? start }

        init(at start: Double, _ model: FleetModel, _ random: inout FleetRandom) {
            self.start = start
            let length = min(
                random.logNormal(median: model.sessionMedian, sigma: model.sessionSigma), model.sessionLimit)
            let cuts = (0..<model.switchesPerSession).map { _ in random.uniform(0, length) }.sorted()
            var clock = start
            var used = 0.0
            for cut in cuts + [length] {
                foreground.append((clock, clock + cut - used))
                clock += cut - used
                used = cut
                if cut < length { clock += max(1, random.exponential(mean: model.backgroundMean)) }
            }
        }
    }
}
