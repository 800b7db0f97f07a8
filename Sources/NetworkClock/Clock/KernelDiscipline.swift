import NetClockPlatform

/// What the kernel's time discipline means for an anchored clock's bound: how much to widen a new
/// anchor, and how fast the bound must grow until the next update.
///
/// The rules, from the kernel's own limits (`adjtimex(2)`, Linux `kernel/time/ntp.c`):
/// - A phase adjustment the kernel still has to slew out (the PLL's `offset`, plus what remains
///   of an `adjtime(3)` slew) will move the boot-time clock by up to that much, at whatever rate
///   the loop chooses; the new anchor's bound is widened by it.
/// - While the kernel says it is unsynchronised (`STA_UNSYNC`, or `TIME_ERROR` returned) or a slew
///   is in progress (a remaining offset, or a tick off nominal), a time daemon may move the clock's
///   frequency anywhere within the kernel's limit: ±500 ppm for `freq` (`MAXFREQ`, RFC 5905
///   `MAXFREQ`, also the `adjtime` slew rate), plus however far `tick` is from nominal. The bound
///   grows at that rate, with no drift correction (a measured drift says nothing about a slew).
/// - Otherwise (synchronised and steady, or unknown) the configured tolerance or the measured
///   drift governs, as before.
package struct KernelDiscipline: Sendable, Hashable {
    /// The kernel's frequency limit while slewing: 500 ppm (`MAXFREQ`).
    package static let slewLimit = 500e-6

    /// The state read at the last update; `nil` when unknown.
    package var state: KernelClockState?

    /// Wraps a reading.
    package init(_ state: KernelClockState?) {
        self.state = state
    }

    /// How much a new anchor's bound is widened: the phase adjustment the kernel still has to
    /// apply (zero when unknown).
    package var boundWidening: Duration {
        state?.remainingSlew ?? .zero
    }

    /// The rate the bound grows at while this state holds, as a fraction, when the kernel may be
    /// slewing; `nil` when the configured tolerance or measured drift governs.
    package var slewGrowthRate: Double? {
        guard let state, !state.isSynchronized || state.isSlewing else { return nil }
        return Self.slewLimit + state.tickRateOffset
    }
}
