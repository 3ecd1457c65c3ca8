// What DAOKit needs from C that Swift cannot express on every platform DAOKit supports: a cheap
// identity for the calling thread, the calling thread's stack bounds and name, the current frame
// address, an `openat2` that refuses symbolic links (Swift cannot call the variadic `syscall`), and
// the CRC-32C of stored records (in hardware where the processor has it, which Swift cannot reach
// portably).
// The first and last are `static inline`, so they cost an instruction or two.
#ifndef CDAOKITSUPPORT_H
#define CDAOKITSUPPORT_H

#include <stddef.h>
#include <stdint.h>

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

/// Names the calling thread `name` (Linux keeps at most 15 bytes and refuses a longer name).
/// Returns 0, or an error number.
int daokit_set_current_thread_name(const char *name);

/// Copies the calling thread's name into `buffer` (of `size` bytes, NUL-terminated). Returns 0, or
/// an error number.
int daokit_current_thread_name(char *buffer, size_t size);

/// Linux's `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`: opens
/// `path`, relative to the open directory `directory`, only if no component of it is a symbolic link
/// and it stays beneath `directory` (`ELOOP` or `EXDEV` otherwise). One call for what would otherwise
/// take an `openat` per component. Returns -1 with `errno` set to `ENOSYS` where the kernel or the
/// platform has no such call (the caller then walks the path one component at a time).
int daokit_openat_beneath(int directory, const char *path, int flags, unsigned int mode);

/// CRC-32C (Castagnoli) of `length` bytes at `data`, continuing from `crc` (0 to start; the result
/// of one call continues into the next, so a checksum of several pieces is that of their
/// concatenation). SSE 4.2 or ARMv8's CRC instructions where the processor has them, else a table:
/// the same value either way ("123456789" gives 0xE3069283).
uint32_t daokit_crc32c(uint32_t crc, const void *data, size_t length);

/// The same checksum by table only, whatever the processor has: for tests that compare it with
/// the hardware's.
uint32_t daokit_crc32c_portable(uint32_t crc, const void *data, size_t length);

/// 1 when ``daokit_crc32c`` uses the processor's CRC instructions, 0 when it uses the table.
int daokit_crc32c_uses_hardware(void);

#endif
