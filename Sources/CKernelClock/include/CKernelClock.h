// The kernel time-discipline interface (`adjtimex`, `struct timex`, `STA_*`), the wall-clock timer
// (`timerfd_*`, `TFD_TIMER_CANCEL_ON_SET`) and rtnetlink (`sockaddr_nl`, `RTMGRP_*`, `RTM_*`),
// which the Glibc module map does not include, the reads of the holdover time base's hot path, and
// `getrandom` (<sys/random.h>, which the Glibc module map does not include either).
// Only NetClockPlatform imports this module.
#ifndef NETCLOCK_CKERNELCLOCK_H
#define NETCLOCK_CKERNELCLOCK_H

#if defined(__linux__)
#include <stdint.h>
#include <sys/timex.h>
#include <sys/timerfd.h>
#include <sys/random.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <time.h>

/// The hot path's reading: the raw oscillator and the suspend epoch, in nanoseconds.
typedef struct {
    int64_t awake;
    int64_t epoch;
} netclock_raw_reading;

/// A `clock_gettime`.
typedef int (*netclock_gettime_fn)(clockid_t, struct timespec *);

/// The vDSO's own `clock_gettime`, found when the library is loaded; NULL when it cannot be found
/// (then the C library's is called). Written once, before `main`; only read afterwards.
extern netclock_gettime_fn netclock_vdso_gettime;

/// One clock in nanoseconds through `read` (the C library's `clock_gettime` when NULL); 0 if the
/// clock cannot be read (these clock ids cannot fail on the kernels that have them).
static inline __attribute__((always_inline)) int64_t netclock_read(netclock_gettime_fn read, clockid_t id) {
    struct timespec ts;
    int failed = read != NULL ? read(id, &ts) : clock_gettime(id, &ts);
    if (failed != 0) return 0;
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/// `CLOCK_MONOTONIC_RAW` in nanoseconds, then `CLOCK_MONOTONIC_COARSE − CLOCK_REALTIME_COARSE`
/// (the suspend epoch), through the vDSO's `clock_gettime` directly when it can be found (the C
/// library's wrapper adds a few nanoseconds a call), else the C library's. The same clocks as
/// `clock_gettime` reads: the vDSO is what it calls for these clock ids. Inline, so that the hot
/// path calls the vDSO and nothing else (no call of a C or Swift wrapper around it).
static inline __attribute__((always_inline)) netclock_raw_reading netclock_raw_and_suspend_epoch(void) {
    netclock_gettime_fn read = netclock_vdso_gettime;
    netclock_raw_reading reading;
    reading.awake = netclock_read(read, CLOCK_MONOTONIC_RAW);
    int64_t wall = netclock_read(read, CLOCK_REALTIME_COARSE);
    reading.epoch = netclock_read(read, CLOCK_MONOTONIC_COARSE) - wall;
    return reading;
}

/// One clock in nanoseconds, read the same way (for the time base's paired readings, so that they
/// read the raw oscillator and the suspend epoch through the same function as the hot path).
int64_t netclock_clock_nanoseconds(int id);

/// `clock_adjtime(clock, timex)`: the C library's call (declared by <time.h> only with
/// `_GNU_SOURCE`, which Swift's Glibc module does not set). Called through the C library, never as
/// a raw system call, so a preloaded library can intercept it.
int netclock_clock_adjtime(int clock, struct timex *timex);

/// Up to `length` bytes of the kernel's CSPRNG into `buffer`, as `getrandom(buffer, length, 0)`
/// gives them (the count written, or -1 and `errno`; blocking only until the pool is first
/// seeded): through the vDSO's getrandom where the kernel has one (Linux 6.11 and later: no system
/// call, its state in memory the kernel wipes on fork), else the system call.
long netclock_random(void *buffer, size_t length);
#endif

#endif
