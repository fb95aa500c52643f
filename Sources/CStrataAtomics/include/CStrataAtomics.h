// The few atomic operations Strata's core needs on every platform it supports: a C target because Swift's
// `Synchronization.Atomic` needs macOS 15 and the core supports macOS 13. The compiler's `__atomic` builtins are
// what `<stdatomic.h>` is made of, and ThreadSanitizer understands them.

#ifndef C_STRATA_ATOMICS_H
#define C_STRATA_ATOMICS_H

#include <stdint.h>

/// Reads `*word` with acquire ordering: what was written before a release store of the value is visible.
static inline intptr_t strata_atomic_load_acquire(const intptr_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Writes `value` to `*word` with release ordering.
static inline void strata_atomic_store_release(intptr_t *word, intptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// Reads `*word` without ordering: a counter's value, a flag that only says whether to look further.
static inline intptr_t strata_atomic_load_relaxed(const intptr_t *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/// Adds `delta` to `*word` (wrapping) without ordering, and returns the value before.
static inline intptr_t strata_atomic_fetch_add_relaxed(intptr_t *word, intptr_t delta) {
    return __atomic_fetch_add(word, delta, __ATOMIC_RELAXED);
}

/// Adds one to `*word` with a relaxed load and a relaxed store, not a read-modify-write, and returns the value
/// before: two threads may read the same value and one increment is lost. Fit for choosing one call in N to sample,
/// where a lost tick only moves which call is sampled; it costs a plain load and store instead of a locked add.
static inline intptr_t strata_atomic_tick_relaxed(intptr_t *word) {
    intptr_t before = __atomic_load_n(word, __ATOMIC_RELAXED);
    __atomic_store_n(word, (intptr_t)((uintptr_t)before + 1), __ATOMIC_RELAXED); // wraps, as unsigned
    return before;
}

#endif
