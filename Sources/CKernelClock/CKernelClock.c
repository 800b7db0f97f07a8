// The time-base reads of NetClockPlatform's hot path, in C so that they cost the kernel's vDSO and
// nothing else. See include/CKernelClock.h.

#if defined(__linux__)
#define _GNU_SOURCE  // dlvsym
#endif

#include "CKernelClock.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <time.h>

typedef int (*netclock_gettime_fn)(clockid_t, struct timespec *);

// The vDSO's own clock_gettime, found once at load time; NULL means "call the C library's".
static netclock_gettime_fn netclock_vdso_gettime;

__attribute__((constructor)) static void netclock_find_vdso(void) {
    void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (vdso == NULL) return;
    // x86-64, i386 and others name it __vdso_clock_gettime; arm64 and riscv __kernel_clock_gettime.
    void *symbol = dlvsym(vdso, "__vdso_clock_gettime", "LINUX_2.6");
    if (symbol == NULL) symbol = dlvsym(vdso, "__kernel_clock_gettime", "LINUX_2.6.39");
    if (symbol == NULL) symbol = dlvsym(vdso, "__kernel_clock_gettime", "LINUX_4.15");
    netclock_vdso_gettime = (netclock_gettime_fn)symbol;
}

static inline int64_t netclock_read(netclock_gettime_fn read, clockid_t id) {
    struct timespec ts;
    // These clock ids cannot fail on the kernels that have them; if one ever did, read zero.
    int failed = read != NULL ? read(id, &ts) : clock_gettime(id, &ts);
    if (failed != 0) return 0;
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

netclock_raw_reading netclock_raw_and_suspend_epoch(void) {
    netclock_gettime_fn read = netclock_vdso_gettime;
    netclock_raw_reading reading;
    reading.awake = netclock_read(read, CLOCK_MONOTONIC_RAW);
    int64_t wall = netclock_read(read, CLOCK_REALTIME_COARSE);
    reading.epoch = netclock_read(read, CLOCK_MONOTONIC_COARSE) - wall;
    return reading;
}

int64_t netclock_clock_nanoseconds(int id) {
    return netclock_read(netclock_vdso_gettime, (clockid_t)id);
}

int netclock_clock_adjtime(int clock, struct timex *timex) {
    return clock_adjtime((clockid_t)clock, timex);
}
#endif
