// CRC-32C (Castagnoli), the checksum of every record DAOKit stores: in hardware where the
// processor has it (SSE 4.2 on x86-64, the CRC extension on ARMv8), chosen once at run time, else
// by table. All three give the same value; the standard check value of "123456789" is 0xE3069283.
#include "CDAOKitSupport.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#elif defined(__aarch64__)
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif
#endif

/// The reflected polynomial 0x1EDC6F41.
#define DAOKIT_CRC32C_POLYNOMIAL 0x82F63B78u

static uint32_t daokit_crc32c_table[8][256];
static atomic_int daokit_crc32c_table_ready = 0;

static void daokit_crc32c_make_table(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (DAOKIT_CRC32C_POLYNOMIAL & (0u - (crc & 1)));
        daokit_crc32c_table[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = daokit_crc32c_table[0][byte];
        for (int slice = 1; slice < 8; slice++) {
            crc = daokit_crc32c_table[0][crc & 0xFF] ^ (crc >> 8);
            daokit_crc32c_table[slice][byte] = crc;
        }
    }
}

uint32_t daokit_crc32c_portable(uint32_t crc, const void *data, size_t length) {
    if (!atomic_load_explicit(&daokit_crc32c_table_ready, memory_order_acquire)) {
        // Racing threads compute the same table; storing it twice is harmless.
        daokit_crc32c_make_table();
        atomic_store_explicit(&daokit_crc32c_table_ready, 1, memory_order_release);
    }
    const unsigned char *bytes = data;
    crc = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        word ^= crc;
        crc = daokit_crc32c_table[7][word & 0xFF] ^ daokit_crc32c_table[6][(word >> 8) & 0xFF]
            ^ daokit_crc32c_table[5][(word >> 16) & 0xFF] ^ daokit_crc32c_table[4][(word >> 24) & 0xFF]
            ^ daokit_crc32c_table[3][(word >> 32) & 0xFF] ^ daokit_crc32c_table[2][(word >> 40) & 0xFF]
            ^ daokit_crc32c_table[1][(word >> 48) & 0xFF] ^ daokit_crc32c_table[0][word >> 56];
        bytes += 8;
        length -= 8;
    }
    while (length--) crc = daokit_crc32c_table[0][(crc ^ *bytes++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t daokit_crc32c_hardware(uint32_t crc, const void *data, size_t length) {
    const unsigned char *bytes = data;
    uint64_t value = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        value = _mm_crc32_u64(value, word);
        bytes += 8;
        length -= 8;
    }
    uint32_t small = (uint32_t)value;
    while (length--) small = _mm_crc32_u8(small, *bytes++);
    return ~small;
}

static int daokit_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}
#elif defined(__aarch64__)
__attribute__((target("crc")))
static uint32_t daokit_crc32c_hardware(uint32_t crc, const void *data, size_t length) {
    const unsigned char *bytes = data;
    uint32_t value = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        value = __builtin_arm_crc32cd(value, word);
        bytes += 8;
        length -= 8;
    }
    while (length--) value = __builtin_arm_crc32cb(value, *bytes++);
    return ~value;
}

static int daokit_crc32c_hardware_available(void) {
#if defined(__APPLE__)
    return 1;  // every Apple arm64 processor has the CRC extension
#elif defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
    return 0;
#endif
}
#endif

/// 0: not decided yet; 1: table; 2: hardware.
static atomic_int daokit_crc32c_choice = 0;

uint32_t daokit_crc32c(uint32_t crc, const void *data, size_t length) {
    int choice = atomic_load_explicit(&daokit_crc32c_choice, memory_order_relaxed);
    if (choice == 0) {
#if defined(__x86_64__) || defined(__aarch64__)
        choice = daokit_crc32c_hardware_available() ? 2 : 1;
#else
        choice = 1;
#endif
        atomic_store_explicit(&daokit_crc32c_choice, choice, memory_order_relaxed);
    }
#if defined(__x86_64__) || defined(__aarch64__)
    if (choice == 2) return daokit_crc32c_hardware(crc, data, length);
#endif
    return daokit_crc32c_portable(crc, data, length);
}

int daokit_crc32c_uses_hardware(void) {
    (void)daokit_crc32c(0, "", 0);
    return atomic_load_explicit(&daokit_crc32c_choice, memory_order_relaxed) == 2;
}
