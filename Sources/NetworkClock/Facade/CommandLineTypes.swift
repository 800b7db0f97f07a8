import ClockCore
import HTTPTime
import NetClockPlatform
import Roughtime
import SNTP
import TimeValues

// The lower modules' types that the command line names in its output and progress, so that it
// imports this module only: Swift needs a direct import to name a type, not to use the members of
// a value it is handed (Architecture.md, "The command line through the facade").

/// How much the clock's oscillator runs fast or slow, and how sure that is (`now --json`).
package typealias FrequencyEstimate = ClockCore.FrequencyEstimate
/// The kernel's discipline of the system clock (`now --json`'s `system_clock`).
package typealias KernelClockState = NetClockPlatform.KernelClockState
/// A step of a sync in progress (the live status line).
package typealias SyncProgress = SNTP.SyncProgress
/// Told about each step of a sync in progress.
package typealias SyncProgressObserver = SNTP.SyncProgressObserver
/// A reply rejected while a request waited (`--samples` output).
package typealias RejectedReply = SNTP.RejectedReply
/// One HTTP(S) request of a fallback measurement (`--json`).
package typealias HTTPRequestRecord = HTTPTime.HTTPRequestRecord
/// An interval the true time lies within.
package typealias TrueTimeInterval = TimeValues.TrueTimeInterval
/// ISO 8601 text for an instant, as every output prints it.
package typealias ISO8601 = TimeValues.ISO8601
