// A preload library for tests of `netclock set`: it intercepts the calls that change the system
// clock (clock_settime, settimeofday, adjtime, and adjtimex, ntp_adjtime and clock_adjtime with
// non-zero modes), appends one JSON line per call to the file named by NETCLOCK_CLOCK_CALLS, and
// reports success without calling the kernel. Reads (modes 0, ADJ_OFFSET_SS_READ) pass through to
// the C library. Each line also carries the program's wall clock as it sees it (faked when
// libfaketime is preloaded after this library) and the kernel's real one (a raw system call,
// which libfaketime cannot shift).
//
// Run the program without CAP_SYS_TIME as well (setpriv --bounding-set=-sys_time
// --inh-caps=-sys_time): a call this library misses is then refused by the kernel, never applied.
//
// Build: gcc -shared -fPIC -O2 -o libclockcallrecorder.so clock-call-recorder.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

// The program's view of the wall clock (through the C library, so a faked one) and the kernel's,
// read before and after it: `real_wall` is the midpoint and `reading_gap` how far apart the two
// kernel readings were (a preemption, or libfaketime's slow path, between them).
static void clocks(char *buffer, size_t size) {
    struct timespec seen = {0, 0}, before = {0, 0}, after = {0, 0};
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &before);
    clock_gettime(CLOCK_REALTIME, &seen);
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &after);
    long long gap = (after.tv_sec - before.tv_sec) * 1000000000LL + (after.tv_nsec - before.tv_nsec);
    long long middle = before.tv_nsec + gap / 2;
    long long seconds = before.tv_sec + middle / 1000000000LL;
    snprintf(buffer, size, "\"seen_wall\":%lld.%09ld,\"real_wall\":%lld.%09lld,\"reading_gap\":%lld.%09lld",
             (long long)seen.tv_sec, seen.tv_nsec, seconds, middle % 1000000000LL, gap / 1000000000LL,
             gap % 1000000000LL);
}

// Appends one JSON object: {"call":NAME, FIELDS, "seen_wall":…, "real_wall":…, "reading_gap":…}. O_APPEND keeps
// lines whole; a missing variable records nothing (the call still succeeds).
static void record(const char *call, const char *format, ...) {
    const char *path = getenv("NETCLOCK_CLOCK_CALLS");
    if (path == NULL || path[0] == '\0') return;
    char fields[512], times[128], line[768];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(fields, sizeof fields, format, arguments);
    va_end(arguments);
    clocks(times, sizeof times);
    int length = snprintf(line, sizeof line, "{\"call\":\"%s\",%s,%s,\"pid\":%d}\n", call, fields, times, getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return;
    ssize_t written = write(fd, line, (size_t)length);
    (void)written;
    close(fd);
}

static void record_timex(const char *call, int clock, const struct timex *tx) {
    record(call,
           "\"clock\":%d,\"modes\":%u,\"offset\":%ld,\"freq\":%ld,\"maxerror\":%ld,\"esterror\":%ld,"
           "\"status\":%d,\"time_sec\":%lld,\"time_frac\":%lld",
           clock, tx->modes, tx->offset, tx->freq, tx->maxerror, tx->esterror, tx->status,
           (long long)tx->time.tv_sec, (long long)tx->time.tv_usec);
}

// A timex call only reads when its modes are 0 or ADJ_OFFSET_SS_READ.
static int is_read(const struct timex *tx) { return tx->modes == 0 || tx->modes == ADJ_OFFSET_SS_READ; }

typedef int (*timex_fn)(struct timex *);
typedef int (*clock_timex_fn)(clockid_t, struct timex *);

int adjtimex(struct timex *tx) {
    if (is_read(tx)) return ((timex_fn)dlsym(RTLD_NEXT, "adjtimex"))(tx);
    record_timex("adjtimex", -1, tx);
    return TIME_OK;
}

int ntp_adjtime(struct timex *tx) {
    if (is_read(tx)) return ((timex_fn)dlsym(RTLD_NEXT, "ntp_adjtime"))(tx);
    record_timex("ntp_adjtime", -1, tx);
    return TIME_OK;
}

int clock_adjtime(clockid_t clock, struct timex *tx) {
    if (is_read(tx)) return ((clock_timex_fn)dlsym(RTLD_NEXT, "clock_adjtime"))(clock, tx);
    record_timex("clock_adjtime", (int)clock, tx);
    return TIME_OK;
}

int clock_settime(clockid_t clock, const struct timespec *time) {
    record("clock_settime", "\"clock\":%d,\"time_sec\":%lld,\"time_frac\":%ld", (int)clock,
           (long long)time->tv_sec, time->tv_nsec);
    return 0;
}

int settimeofday(const struct timeval *time, const struct timezone *zone) {
    (void)zone;
    if (time == NULL) {
        record("settimeofday", "\"time_sec\":null,\"time_frac\":null");
    } else {
        record("settimeofday", "\"time_sec\":%lld,\"time_frac\":%ld", (long long)time->tv_sec,
               (long)time->tv_usec);
    }
    return 0;
}

int adjtime(const struct timeval *delta, struct timeval *olddelta) {
    if (olddelta != NULL) memset(olddelta, 0, sizeof *olddelta);
    if (delta == NULL) return 0;  // A read of what remains: nothing pending here.
    record("adjtime", "\"time_sec\":%lld,\"time_frac\":%ld", (long long)delta->tv_sec, (long)delta->tv_usec);
    return 0;
}
