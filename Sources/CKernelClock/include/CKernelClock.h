// The kernel time-discipline interface (`adjtimex`, `struct timex`, `STA_*`), the wall-clock timer
// (`timerfd_*`, `TFD_TIMER_CANCEL_ON_SET`) and rtnetlink (`sockaddr_nl`, `RTMGRP_*`, `RTM_*`),
// which the Glibc module map does not include, and the reads of the holdover time base's hot path.
// Only NetClockPlatform imports this module.
#ifndef NETCLOCK_CKERNELCLOCK_H
#define NETCLOCK_CKERNELCLOCK_H

#if defined(__linux__)
#include <stdint.h>
#include <sys/timex.h>
#include <sys/timerfd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/// The hot path's reading: the raw oscillator and the suspend epoch, in nanoseconds.
typedef struct {
    int64_t awake;
    int64_t epoch;
} netclock_raw_reading;

/// `CLOCK_MONOTONIC_RAW` in nanoseconds, then `CLOCK_MONOTONIC_COARSE − CLOCK_REALTIME_COARSE`
/// (the suspend epoch), through the vDSO's `clock_gettime` directly when it can be found (the C
/// library's wrapper adds a few nanoseconds a call), else the C library's. The same clocks as
/// `clock_gettime` reads: the vDSO is what it calls for these clock ids.
netclock_raw_reading netclock_raw_and_suspend_epoch(void);

/// One clock in nanoseconds, read the same way (for the time base's paired readings, so that they
/// read the raw oscillator and the suspend epoch through the same function as the hot path).
int64_t netclock_clock_nanoseconds(int id);

/// `clock_adjtime(clock, timex)`: the C library's call (declared by <time.h> only with
/// `_GNU_SOURCE`, which Swift's Glibc module does not set). Called through the C library, never as
/// a raw system call, so a preloaded library can intercept it.
int netclock_clock_adjtime(int clock, struct timex *timex);
#endif

#endif
