import NetClockPlatform

extension NetworkClock {
    /// Another discipline of the system clock that `netclock set` found: a time daemon's process, or
    /// the kernel's own discipline state showing one at work. Two disciplines of one clock fight, so a
    /// correction is refused while one is found (``SystemClockRefusal/Code/otherTimeDaemon``) unless
    /// ``SystemClockPolicy/overridesOtherDisciplines``.
    public struct TimeDiscipline: Hashable, Sendable, CustomStringConvertible {
        /// What disciplines the clock: `chronyd`, `ntpd`, `ntpd-rs`, `systemd-timesyncd`, or `kernel`.
        public var name: String
        /// How it was found: `pid 812`, `STA_PLL set`, …
        public var evidence: String

        /// A discipline from its parts.
        public init(name: String, evidence: String) {
            self.name = name
            self.evidence = evidence
        }

        /// `chronyd (pid 812)`.
        public var description: String { "\(name) (\(evidence))" }

        /// The disciplines running now: the processes /proc lists and the kernel's discipline state.
        public static func running() -> [TimeDiscipline] {
            detect(kernel: Syscalls.kernelClockState(), processes: Syscalls.runningProcesses())
        }

        /// The disciplines that `kernel` and `processes` show.
        ///
        /// - Processes: `chronyd` (except one run with `-x`, which never touches the clock, as test
        ///   servers run, or `-Q`, which only prints the offset), `ntpd` (ntpsec's and OpenNTPD's), `ntpd-rs` (its daemon, `ntp-daemon`) and
        ///   `systemd-timesyncd` (`comm` cuts it to `systemd-timesyn`).
        /// - The kernel: a PLL, FLL or PPS discipline flag, a PLL phase offset still being slewed, a
        ///   tick away from nominal (chronyd slews that way), or a frequency correction on a clock
        ///   declared synchronised. What `netclock set` itself leaves (a single-shot slew, the errors
        ///   and a cleared `STA_UNSYNC`) is none of these.
        package static func detect(kernel: KernelClockState?, processes: [RunningProcess]) -> [TimeDiscipline]
        {
            var found = processes.compactMap(daemon(in:))
            if let kernel {
                let flags: [(KernelClockStatus, String)] = [
                    (.pll, "STA_PLL"), (.fll, "STA_FLL"), (.ppsTime, "STA_PPSTIME"),
                    (.ppsFrequency, "STA_PPSFREQ"),
                ]
                for (flag, name) in flags where kernel.status.contains(flag) {
                    found.append(TimeDiscipline(name: "kernel", evidence: "\(name) set"))
                }
                if kernel.offset != .zero {
                    found.append(
                        TimeDiscipline(
                            name: "kernel",
                            evidence: "PLL offset \(kernel.offset.signedFormattedSeconds) to slew"))
                }
                if kernel.tickRateOffset > 0 {
                    found.append(
                        TimeDiscipline(
                            name: "kernel", evidence: "tick \(kernel.tick.formattedSeconds), not nominal"))
                }
                if kernel.isSynchronized && kernel.frequencyPPM != 0 {
                    found.append(
                        TimeDiscipline(
                            name: "kernel",
                            evidence:
                                "frequency corrected by \(kernel.frequencyPPM) ppm on a synchronised clock"))
                }
            }
            return found
        }

        /// The time daemon `process` is, if it is one that disciplines the clock.
        static func daemon(in process: RunningProcess) -> TimeDiscipline? {
            let evidence = "pid \(process.id)"
            switch process.name {
            case "chronyd":
                return leavesClockAlone(chronydArguments: process.arguments.dropFirst())
                    ? nil : TimeDiscipline(name: "chronyd", evidence: evidence)
            case "ntpd": return TimeDiscipline(name: "ntpd", evidence: evidence)
            case "ntpd-rs", "ntp-daemon": return TimeDiscipline(name: "ntpd-rs", evidence: evidence)
            case "systemd-timesyn", "systemd-timesyncd":
                return TimeDiscipline(name: "systemd-timesyncd", evidence: evidence)
            default: return nil
            }
        }

        /// Whether chronyd's arguments include `-x` (never touch the clock) or `-Q` (print the offset
        /// and exit), alone or in a cluster of flags before any flag that takes a value (`-dx`, not
        /// `-fx`, where `x` is a file name).
        static func leavesClockAlone(chronydArguments: some Sequence<String>) -> Bool {
            let takesValue: Set<Character> = ["f", "u", "t", "F", "L", "P", "U"]
            var skipNext = false
            for argument in chronydArguments {
                if skipNext {
                    skipNext = false
                    continue
                }
                guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 1 else { continue }
                for letter in argument.dropFirst() {
                    if letter == "x" || letter == "Q" { return true }
                    if takesValue.contains(letter) {
                        skipNext = argument.last == letter
                        break
                    }
                }
            }
            return false
        }
    }
}
