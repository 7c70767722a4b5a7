/* Ryu (U. Adams, "Ryu: fast float-to-string conversion", PLDI 2018) for doubles.
 *
 * A double x = m2 * 2^e2 is read back by strtod from every decimal of the interval around it that
 * ends halfway to its neighbours: with mv = 4 m2, the interval is (mm, mp) * 2^(e2-2), mp = mv + 2,
 * mm = mv - 2, or mm = mv - 1 at a power of 2 whose lower neighbour is half as far; the ends
 * themselves belong to it when m2 is even (ties to even).  The shortest decimal in it is found from
 * vm, vr, vp: the three scaled by 10^-e10 and truncated to integers, e10 chosen so that they have
 * at most 17-18 digits.  Removing trailing digits while vm and vp still differ leaves the fewest
 * digits; vr, rounded by the digits it lost, is the one nearest x.  The scaling by 2^e2 / 10^e10 is
 * one product by a 125-bit power of 5 from shortest_table.h and a shift, which the paper proves
 * exact (the floor of the real product) for every double.  Whether the truncations dropped only
 * zeros decides the ties and the ends; it is known from the powers of 5 (e2 >= 0) or of 2 (e2 < 0)
 * that divide mm, mv, mp.
 *
 * Beyond the paper: every flag of exactness is computed wherever it can be true (q <= 23 for e2 >= 0,
 * as 5^24 exceeds mp), not only where the paper's bounds need it.  The digits are checked against
 * strtod and the %.17g they replaced on 10^8 doubles (docs/verification.md, Writing numbers). */
#include "core/shortest.h"

#include <stdbool.h>
#include <string.h>

#include "core/shortest_table.h"

#define MANTISSA_BITS 52
#define EXPONENT_BIAS 1023

/* ceil(log2(5^e)) (1 for e = 0), floor(log10(2^e)), floor(log10(5^e)): exact for 0 <= e <= 1077
 * (shortest_table.py checks them). */
static inline int pow5bits(int e)
{
    return (int)(((uint32_t)e * 1217359u) >> 19) + 1;
}

static inline int log10_pow2(int e)
{
    return (int)(((uint32_t)e * 78913u) >> 18);
}

static inline int log10_pow5(int e)
{
    return (int)(((uint32_t)e * 732923u) >> 20);
}

/* floor(m * mul / 2^shift) for m < 2^55, mul < 2^126, 64 <= shift < 128: the low 64 bits of
 * m * mul[0] cannot carry into the bits kept. */
static inline uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int shift)
{
#if defined(__SIZEOF_INT128__) && !defined(PL_SHORTEST_PORTABLE)
    __extension__ typedef unsigned __int128 u128;
    u128 low = (u128)m * mul[0];
    u128 high = (u128)m * mul[1] + (low >> 64);
    return (uint64_t)(high >> (shift - 64));
#else
    /* 64 x 64 -> 128 from 32-bit halves, where the compiler has no 128-bit integers (tested by
     * tests/test_shortest_portable.c against the other) */
    uint64_t lo_hi, hi_hi, hi_lo;
    {
        uint64_t a = m, b = mul[0];
        uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
        uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
        uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
        lo_hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    }
    {
        uint64_t a = m, b = mul[1];
        uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
        uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
        uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
        hi_lo = (mid << 32) | (uint32_t)p00;
        hi_hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    }
    hi_lo += lo_hi;
    hi_hi += hi_lo < lo_hi;
    int s = shift - 64;
    return s == 0 ? hi_lo : (hi_lo >> s) | (hi_hi << (64 - s));
#endif
}

static inline bool multiple_of_pow5(uint64_t v, int p)
{
    for (; p > 0; p--) {
        if (v % 5 != 0)
            return false;
        v /= 5;
    }
    return true;
}

static inline bool multiple_of_pow2(uint64_t v, int p)
{
    return p < 64 && (v & ((UINT64_C(1) << p) - 1)) == 0;
}

int pl_shortest(double x, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint64_t fraction = bits & ((UINT64_C(1) << MANTISSA_BITS) - 1);
    const int biased = (int)((bits >> MANTISSA_BITS) & 0x7ff);
    if (biased == 0x7ff || (fraction == 0 && biased == 0)) { /* inf, nan; zero */
        *digits = 0;
        *exp10 = 0;
        return biased == 0;
    }
    uint64_t m2;
    int e2;
    if (biased == 0) { /* subnormal */
        m2 = fraction;
        e2 = 1 - EXPONENT_BIAS - MANTISSA_BITS - 2;
    } else {
        m2 = fraction | (UINT64_C(1) << MANTISSA_BITS);
        e2 = biased - EXPONENT_BIAS - MANTISSA_BITS - 2;
    }
    const bool ends_included = (m2 & 1) == 0;
    const int mm_shift = fraction != 0 || biased <= 1; /* 0: the lower neighbour is half as far */
    const uint64_t mv = 4 * m2, mp = mv + 2, mm = mv - 1 - (uint64_t)mm_shift;

    uint64_t vr, vp, vm;
    int e10;
    bool vr_exact = false, vm_exact = false; /* vr, vm: no nonzero digit truncated */
    if (e2 >= 0) {
        /* 10^e10 <= 2^e2 / 10 for e2 > 3: one digit more than needed, for the rounding */
        const int q = log10_pow2(e2) - (e2 > 3);
        const int shift = -e2 + q + pow5bits(q) - 1 + PL_POW5_BITS;
        e10 = q;
        vr = mul_shift(mv, pl_pow5_inv[q], shift);
        vp = mul_shift(mp, pl_pow5_inv[q], shift);
        vm = mul_shift(mm, pl_pow5_inv[q], shift);
        /* v * 2^e2 / 10^q is an integer when 5^q divides v (q <= e2); never for q >= 24 (5^24 > mp) */
        if (q <= 23) {
            vr_exact = multiple_of_pow5(mv, q);
            if (ends_included)
                vm_exact = multiple_of_pow5(mm, q);
            else
                vp -= multiple_of_pow5(mp, q); /* the upper end is not x's: one below it */
        }
    } else {
        const int q = log10_pow5(-e2) - (-e2 > 1);
        const int i = -e2 - q;
        const int shift = q - (pow5bits(i) - PL_POW5_BITS);
        e10 = q + e2;
        vr = mul_shift(mv, pl_pow5[i], shift);
        vp = mul_shift(mp, pl_pow5[i], shift);
        vm = mul_shift(mm, pl_pow5[i], shift);
        /* v * 5^i / 2^q is an integer when 2^q divides v */
        vr_exact = multiple_of_pow2(mv, q);
        if (ends_included)
            vm_exact = multiple_of_pow2(mm, q);
        else
            vp -= multiple_of_pow2(mp, q);
    }

    int removed = 0;
    unsigned last = 0; /* the last digit removed from vr */
    uint64_t output;
    if (vr_exact || vm_exact) {
        while (vp / 10 > vm / 10) {
            vm_exact &= vm % 10 == 0;
            vr_exact &= last == 0;
            last = (unsigned)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        if (vm_exact) /* the lower end itself is x's: its trailing zeros go too */
            while (vm % 10 == 0) {
                vr_exact &= last == 0;
                last = (unsigned)(vr % 10);
                vr /= 10;
                vp /= 10;
                vm /= 10;
                removed++;
            }
        if (vr_exact && last == 5 && vr % 2 == 0)
            last = 4; /* exactly halfway: to the even digit */
        output = vr + ((vr == vm && (!ends_included || !vm_exact)) || last >= 5);
    } else {
        /* the common case: no tie, vm outside the interval; two digits at a time while possible */
        while (vp / 100 > vm / 100) {
            last = (unsigned)(vr % 100);
            vr /= 100;
            vp /= 100;
            vm /= 100;
            removed += 2;
        }
        last = last >= 50 ? 5 : 0; /* only whether it rounds up counts now */
        if (vp / 10 > vm / 10) {
            last = (unsigned)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            removed++;
        }
        output = vr + (vr == vm || last >= 5);
    }
    e10 += removed;
    while (output % 10 == 0) { /* 999 rounded up to 1000 */
        output /= 10;
        e10++;
    }
    int n = 17; /* output < 10^17 */
    for (uint64_t p = UINT64_C(10000000000000000); n > 1 && output < p; p /= 10)
        n--;
    *digits = output;
    *exp10 = e10;
    return n;
}
