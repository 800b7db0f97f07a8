// Intentionally empty: the module exists for its header (see include/CKernelClock.h).
