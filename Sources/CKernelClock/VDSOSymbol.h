// A function of the kernel's vDSO, for this module's C files (not part of its Swift interface).
#ifndef NETCLOCK_VDSO_SYMBOL_H
#define NETCLOCK_VDSO_SYMBOL_H

/// The vDSO's `name` (`clock_gettime`, `getrandom`): `__vdso_name` as x86-64 and i386 export it,
/// else `__kernel_name` as arm64 and riscv do; NULL when the vDSO is not mapped or lacks it.
void *netclock_vdso_symbol(const char *name);

#endif
