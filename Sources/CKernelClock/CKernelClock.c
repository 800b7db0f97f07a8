// The time-base reads of NetClockPlatform's hot path, in C so that they cost the kernel's vDSO and
// nothing else. See include/CKernelClock.h.

#if defined(__linux__)
#define _GNU_SOURCE  // dlvsym
#endif

#include "CKernelClock.h"
#include "VDSOSymbol.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

// The vDSO's own clock_gettime, found once at load time; NULL means "call the C library's".
netclock_gettime_fn netclock_vdso_gettime;

void *netclock_vdso_symbol(const char *name) {
    void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (vdso == NULL) return NULL;
    char symbol[64];
    snprintf(symbol, sizeof symbol, "__vdso_%s", name);
    void *found = dlvsym(vdso, symbol, "LINUX_2.6");
    snprintf(symbol, sizeof symbol, "__kernel_%s", name);
    if (found == NULL) found = dlvsym(vdso, symbol, "LINUX_2.6.39");
    if (found == NULL) found = dlvsym(vdso, symbol, "LINUX_4.15");
    return found;
}

__attribute__((constructor)) static void netclock_find_vdso(void) {
    netclock_vdso_gettime = (netclock_gettime_fn)netclock_vdso_symbol("clock_gettime");
}

int64_t netclock_clock_nanoseconds(int id) {
    return netclock_read(netclock_vdso_gettime, (clockid_t)id);
}

int netclock_clock_adjtime(int clock, struct timex *timex) {
    return clock_adjtime((clockid_t)clock, timex);
}
#endif
