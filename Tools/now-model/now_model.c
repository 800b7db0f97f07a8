// A C model of AnchoredClock.now()'s hot path, to tell the language's cost from the hot path's own
// (Benchmarks.md, "now(): where the time goes"): the same three vDSO reads, the same sequence lock
// and fields, the same fixed-point arithmetic and a result of the same six words, against the C
// library's clock_gettime(CLOCK_REALTIME) and the three reads alone. Not part of the package.
//
//   gcc -O2 Tools/now-model/now_model.c -o /tmp/now_model -ldl && /tmp/now_model
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef int (*gettime_fn)(clockid_t, struct timespec *);
static gettime_fn vdso;

static double thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static inline int64_t read_ns(clockid_t id) {
    struct timespec t;
    if (vdso(id, &t) != 0) return 0;
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// One slot of AnchorCell's fast fields.
typedef struct {
    _Atomic int64_t sequence;
    __int128 true_time;
    int64_t anchor_awake, bound, suspended, epoch, frequency, knee_awake, knee_growth, leap;
    uint64_t linear, wander, rate, metadata, span;
} slot;

// TimeEstimate's six words.
typedef struct {
    __int128 time;
    int64_t bound, age;
    uint64_t metadata;
    int64_t leap;
} estimate;

static slot slots[2];
static _Atomic int active;
static volatile int64_t sink;

__attribute__((noinline)) static int now(estimate *out) {
    for (;;) {
        slot *s = &slots[atomic_load_explicit(&active, memory_order_acquire)];
        int64_t before = atomic_load_explicit(&s->sequence, memory_order_acquire);
        if (before & 1) continue;
        uint64_t metadata = s->metadata;
        if (!(metadata & 1)) return 0;
        int64_t awake = read_ns(CLOCK_MONOTONIC_RAW);
        int64_t wall = read_ns(CLOCK_REALTIME_COARSE);
        int64_t epoch = read_ns(CLOCK_MONOTONIC_COARSE) - wall;
        int64_t elapsed = awake - s->anchor_awake;
        if (s->epoch != epoch || (uint64_t)elapsed >= s->span) return 0;
        int64_t correction = (int64_t)(((__int128)elapsed * s->frequency) >> 62);
        uint64_t a = (uint64_t)elapsed, growth;
        if (elapsed >= s->knee_awake) {
            growth = s->knee_growth + (uint64_t)(((unsigned __int128)a * s->rate) >> 64);
        } else {
            uint64_t wander = (uint64_t)(((unsigned __int128)s->wander * (a << 16)) >> 64);
            growth = (uint64_t)(((unsigned __int128)a * (s->linear + wander)) >> 64);
        }
        out->time = s->true_time + (__int128)(elapsed - correction) * 1000000000;
        out->bound = s->bound + (elapsed != 0) + (int64_t)growth;
        out->age = elapsed + s->suspended;
        out->metadata = metadata;
        out->leap = s->leap;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->sequence, memory_order_relaxed) == before) return 1;
    }
}

__attribute__((noinline)) static void three_reads(estimate *out) {
    int64_t awake = read_ns(CLOCK_MONOTONIC_RAW);
    int64_t wall = read_ns(CLOCK_REALTIME_COARSE);
    out->bound = awake + read_ns(CLOCK_MONOTONIC_COARSE) - wall;
}

__attribute__((noinline)) static void consume(const estimate *e) { sink = e->bound; }

int main(void) {
    void *handle = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
    vdso = handle ? (gettime_fn)dlsym(handle, "__vdso_clock_gettime") : NULL;
    if (vdso == NULL) {
        fprintf(stderr, "now_model: no vDSO clock_gettime\n");
        return 1;
    }
    slots[0].anchor_awake = read_ns(CLOCK_MONOTONIC_RAW);
    slots[0].metadata = 3;
    slots[0].span = 1ULL << 62;
    slots[0].knee_awake = 1LL << 40;
    slots[0].linear = 1ULL << 40;
    slots[0].wander = 1000;
    slots[0].frequency = 12345678;
    int64_t wall = read_ns(CLOCK_REALTIME_COARSE);
    slots[0].epoch = read_ns(CLOCK_MONOTONIC_COARSE) - wall;
    const int n = 5000000;
    printf("ns per call (CPU time, %d calls, 5 interleaved rounds)\n", n);
    for (int round = 0; round < 5; round++) {
        estimate e = {0};
        double t0 = thread_cpu_ns();
        for (int i = 0; i < n; i++) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            e.bound = t.tv_nsec;
            consume(&e);
        }
        double t1 = thread_cpu_ns();
        for (int i = 0; i < n; i++) {
            three_reads(&e);
            consume(&e);
        }
        double t2 = thread_cpu_ns();
        int slow = 0;
        for (int i = 0; i < n; i++) {
            if (!now(&e)) slow++;
            consume(&e);
        }
        double t3 = thread_cpu_ns();
        printf("  clock_gettime(REALTIME) %.1f   three reads %.1f   hot path %.1f (%d slow)\n", (t1 - t0) / n,
            (t2 - t1) / n, (t3 - t2) / n, slow);
    }
    return 0;
}
