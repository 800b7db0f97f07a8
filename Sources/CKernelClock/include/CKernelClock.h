// The kernel time-discipline interface (`adjtimex`, `struct timex`, `STA_*`), which the Glibc
// module map does not include. Only NetClockPlatform imports this module.
#ifndef NETCLOCK_CKERNELCLOCK_H
#define NETCLOCK_CKERNELCLOCK_H

#if defined(__linux__)
#include <sys/timex.h>
#endif

#endif
