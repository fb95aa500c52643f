#include "CStrataChecksum.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define STRATA_CHECKSUM_AVX2 1
#include <immintrin.h>

// Two 256-bit registers hold the eight lanes of each of the four sums; one block is two loads, two shifts
// and eight additions.
__attribute__((target("avx2"))) static void strata_checksum_sums_avx2(
    const unsigned char *bytes, size_t count, uint64_t *sums)
{
    __m256i w0 = _mm256_setzero_si256(), w1 = w0, h0 = w0, h1 = w0, pw0 = w0, pw1 = w0, ph0 = w0, ph1 = w0;
    for (size_t block = 0; block < count; block++, bytes += 64) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)bytes);
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(bytes + 32));
        w0 = _mm256_add_epi64(w0, x0);
        w1 = _mm256_add_epi64(w1, x1);
        h0 = _mm256_add_epi64(h0, _mm256_srli_epi64(x0, 32));
        h1 = _mm256_add_epi64(h1, _mm256_srli_epi64(x1, 32));
        pw0 = _mm256_add_epi64(pw0, w0);
        pw1 = _mm256_add_epi64(pw1, w1);
        ph0 = _mm256_add_epi64(ph0, h0);
        ph1 = _mm256_add_epi64(ph1, h1);
    }
    _mm256_storeu_si256((__m256i *)(sums + 0), w0);
    _mm256_storeu_si256((__m256i *)(sums + 4), w1);
    _mm256_storeu_si256((__m256i *)(sums + 8), h0);
    _mm256_storeu_si256((__m256i *)(sums + 12), h1);
    _mm256_storeu_si256((__m256i *)(sums + 16), pw0);
    _mm256_storeu_si256((__m256i *)(sums + 20), pw1);
    _mm256_storeu_si256((__m256i *)(sums + 24), ph0);
    _mm256_storeu_si256((__m256i *)(sums + 28), ph1);
}
#endif

int strata_checksum_kernel_available(void)
{
#if defined(STRATA_CHECKSUM_AVX2)
    // Reads what the compiler runtime detected at load time (CPUID and the OS's saved AVX state): no race.
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

int strata_checksum_sums(const void *bytes, size_t count, uint64_t *sums)
{
#if defined(STRATA_CHECKSUM_AVX2)
    if (__builtin_cpu_supports("avx2")) {
        strata_checksum_sums_avx2((const unsigned char *)bytes, count, sums);
        return 1;
    }
#endif
    (void)bytes;
    (void)count;
    (void)sums;
    return 0;
}
