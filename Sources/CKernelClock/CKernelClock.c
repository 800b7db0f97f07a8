// The time-base reads of NetClockPlatform's hot path, in C so that they cost the kernel's vDSO and
// nothing else. See include/CKernelClock.h.

#if defined(__linux__)
#define _GNU_SOURCE  // dlvsym
#endif

#include "CKernelClock.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <time.h>

// The vDSO's own clock_gettime, found once at load time; NULL means "call the C library's".
netclock_gettime_fn netclock_vdso_gettime;

__attribute__((constructor)) static void netclock_find_vdso(void) {
    void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (vdso == NULL) return;
    // x86-64, i386 and others name it __vdso_clock_gettime; arm64 and riscv __kernel_clock_gettime.
    void *symbol = dlvsym(vdso, "__vdso_clock_gettime", "LINUX_2.6");
    if (symbol == NULL) symbol = dlvsym(vdso, "__kernel_clock_gettime", "LINUX_2.6.39");
    if (symbol == NULL) symbol = dlvsym(vdso, "__kernel_clock_gettime", "LINUX_4.15");
    netclock_vdso_gettime = (netclock_gettime_fn)symbol;
}

int64_t netclock_clock_nanoseconds(int id) {
    return netclock_read(netclock_vdso_gettime, (clockid_t)id);
}

int netclock_clock_adjtime(int clock, struct timex *timex) {
    return clock_adjtime((clockid_t)clock, timex);
}
#endif
