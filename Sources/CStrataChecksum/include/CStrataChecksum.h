// The vector kernel of StrataFile's content checksum (`ContentChecksum`): a C target because Swift cannot
// compile one function for AVX2 and choose it at run time, and the baseline x86-64 target (SSE2) makes the
// checksum cost as much as the read of an entry.

#ifndef C_STRATA_CHECKSUM_H
#define C_STRATA_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// Whether `strata_checksum_sums` runs on this processor (x86-64 with AVX2); when 0, the caller sums in Swift.
int strata_checksum_kernel_available(void);

/// Sums `count` blocks of 64 bytes taken as eight little-endian 64-bit words, one per lane. For each lane,
/// from zero: `sums[0..<8]` the words, `sums[8..<16]` their high 32-bit halves, `sums[16..<24]` the running
/// sum of the words after each block, `sums[24..<32]` the running sum of the high halves after each block
/// (all wrapping modulo 2^64). Returns 0 without touching `sums` when the kernel is not available.
int strata_checksum_sums(const void *bytes, size_t count, uint64_t *sums);

#endif
