// The kernel's CSPRNG for NTS requests: the vDSO's getrandom (Linux 6.11 and later) where it
// exists, else the getrandom system call. See include/CKernelClock.h.

#if defined(__linux__)
#include "CKernelClock.h"
#include "VDSOSymbol.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

// What the vDSO's getrandom asks of the memory its states live in (the kernel's
// `struct vgetrandom_opaque_params`).
typedef struct {
    uint32_t size_of_opaque_state;
    uint32_t mmap_prot;
    uint32_t mmap_flags;
    uint32_t reserved[13];
} netclock_vgetrandom_params;

typedef ssize_t (*netclock_vgetrandom_fn)(void *, size_t, unsigned int, void *, size_t);

// At most this many threads draw from the vDSO at once; another one makes the system call.
#define NETCLOCK_RANDOM_STATES 16

// The vDSO's function and the states it keeps its per-caller key in, set up once; `call` stays
// NULL where the vDSO has no getrandom (older kernels) or the states cannot be mapped.
static struct {
    netclock_vgetrandom_fn call;
    size_t state_size;
    void *states[NETCLOCK_RANDOM_STATES];
    atomic_bool busy[NETCLOCK_RANDOM_STATES];
} pool;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void netclock_random_setup(void) {
    netclock_vgetrandom_fn call = (netclock_vgetrandom_fn)netclock_vdso_symbol("getrandom");
    if (call == NULL) return;
    netclock_vgetrandom_params params;
    if (call(NULL, 0, 0, &params, ~(size_t)0) != 0 || params.size_of_opaque_state == 0) return;
    long page = sysconf(_SC_PAGESIZE);
    size_t size = params.size_of_opaque_state;
    if (page <= 0 || size > (size_t)page) return;
    size_t per_page = (size_t)page / size;
    size_t pages = (NETCLOCK_RANDOM_STATES + per_page - 1) / per_page;
    // The kernel's protection and flags (MAP_DROPPABLE: wiped on fork and when memory is short,
    // which the vDSO notices and answers by reseeding).
    void *memory = mmap(NULL, pages * (size_t)page, (int)params.mmap_prot, (int)params.mmap_flags, -1, 0);
    if (memory == MAP_FAILED) return;
    for (size_t index = 0; index < NETCLOCK_RANDOM_STATES; index++) {
        // No state may straddle a page.
        pool.states[index] = (uint8_t *)memory + (index / per_page) * (size_t)page + (index % per_page) * size;
    }
    pool.state_size = size;
    pool.call = call;
}

long netclock_random(void *buffer, size_t length) {
    pthread_once(&pool_once, netclock_random_setup);
    if (pool.call != NULL) {
        for (int index = 0; index < NETCLOCK_RANDOM_STATES; index++) {
            // A state serves one caller at a time.
            if (atomic_exchange_explicit(&pool.busy[index], true, memory_order_acquire)) continue;
            ssize_t result = pool.call(buffer, length, 0, pool.states[index], pool.state_size);
            atomic_store_explicit(&pool.busy[index], false, memory_order_release);
            if (result >= 0) return (long)result;
            break;  // the vDSO declined (a negative errno): the system call answers
        }
    }
    return (long)getrandom(buffer, length, 0);
}
#endif
