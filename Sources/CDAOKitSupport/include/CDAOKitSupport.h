// What DAOKit needs from C that Swift cannot express portably on every platform DAOKit supports:
// relaxed atomic loads and stores of a 64-bit word (the `Synchronization` module's `Atomic` needs
// macOS 15 / iOS 18), the calling thread's stack bounds, and the current frame address.
//
// Everything here is `static inline` so that it costs what the instruction costs: a relaxed
// 64-bit load or store is a plain `mov`/`ldr`/`str` on x86-64 and arm64.
#ifndef CDAOKITSUPPORT_H
#define CDAOKITSUPPORT_H

#include <stdint.h>

/// Reads `*word` atomically (relaxed). Used for the generation and level counters that a container
/// kept by user code may read from another thread while the thread that owns them writes them:
/// the answer is only ever compared for equality with a number the reader already holds.
static inline uint64_t daokit_load_relaxed(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/// Writes `*word` atomically (relaxed); see `daokit_load_relaxed`.
static inline void daokit_store_relaxed(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

/// A byte each thread has its own copy of (see `daokit_current_thread_identity`).
extern _Thread_local char daokit_thread_marker;

/// A number that identifies the calling thread among the threads running now: the address of its
/// copy of `daokit_thread_marker`. One or two instructions, where `pthread_self()` is a call.
static inline uintptr_t daokit_current_thread_identity(void) {
    return (uintptr_t)&daokit_thread_marker;
}

/// The address of the caller's frame: where the stack currently is. Unlike the address of a local
/// variable it is never on AddressSanitizer's fake stack.
static inline __attribute__((always_inline)) uintptr_t daokit_frame_address(void) {
    return (uintptr_t)__builtin_frame_address(0);
}

/// The lowest usable address of the calling thread's stack (stacks grow down on every platform DAOKit
/// supports), or 0 when the system cannot tell.
uintptr_t daokit_current_thread_stack_low(void);

#endif
