// The exact sum of float or double values, as a lesson in reproducible reduction.
//
// A floating-point sum's result depends on the order of its additions, because each one
// rounds. Integer addition does not round, so it is associative: any order of any tree gives
// the same bits. This kernel therefore turns every value into an integer: the fixed-point
// number whose unit is the type's smallest subnormal value (2^LOWEST_BIT), wide enough for
// the type's largest value times 2^64. That integer is held in LIMBS signed 64-bit limbs,
// each of which carries one 32-bit digit: a limb can take some 2^31 more digits before it
// must carry into the next one, so carries are deferred until a work-group or the host
// normalises (normalise_into()). A work-group's limbs are in local memory, and its
// work-items add their digits there with 64-bit atomic adds: integer atomics commute, so
// their order changes nothing. The host rounds the final integer once, to nearest even
// (clreduce/exact.hpp), so the result is the exact sum correctly rounded, on every device.
//
// Speed: turning a value into digits costs some 20 instructions and three atomics. Most
// values never get there: each work-item first adds its values to short floating-point
// expansions (three double4, kept in registers) with TwoSum, which is exact; only what an
// expansion cannot hold spills into the digits (ExBLAS's design), and at the end each
// work-item spills its expansions. Each lane of the double4 is an expansion of its own, so
// four values go in side by side.
//
// Build options: -D VALUE=float|double, -D LIMBS=<limbs>, -D LOWEST_BIT=<-149|-1074>,
// -D VALUE_IS_FLOAT for float input, and -D CONTIGUOUS on CPUs. Needs cl_khr_fp64 (the
// expansions are in double, where no sum of floats overflows) and cl_khr_int64_base_atomics.
//
// An accumulator row, as both kernels write it and the host reads it: LIMBS limbs, least
// significant first, then the counts of NaNs, of +infinities and of -infinities met, which
// add up as integers too and decide the result when nonzero.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define NAN_COUNT LIMBS
#define POSITIVE_INFINITY_COUNT (LIMBS + 1)
#define NEGATIVE_INFINITY_COUNT (LIMBS + 2)
#define ROW_WIDTH (LIMBS + 3)

#define DIGIT_BITS 32
#define DIGIT_MASK 0xffffffffUL
#define EXPANSION 3 // entries of a work-item's expansions (deposit() writes them out)

// VALUE's vector of four: float4 or double4 (two steps, so that VALUE is expanded first).
#define VECTOR_OF_FOUR(type) type##4
#define VECTOR(type) VECTOR_OF_FOUR(type)
#define VALUE4 VECTOR(VALUE)

/// Four values as doubles, exactly. A float is decoded from its bits, so that a device that
/// flushes float subnormals to zero (as some GPUs' float units do) still adds them.
inline double4 widen(VALUE4 x) {
#ifdef VALUE_IS_FLOAT
    const uint4 bits = as_uint4(x);
    const uint4 exponent = (bits >> 23) & 0xff;
    const uint4 hidden = select((uint4)0, (uint4)0x800000, exponent != 0);
    const double4 mantissa = convert_double4((bits & 0x7fffff) | hidden);
    const int4 scale = convert_int4(max(exponent, (uint4)1)) - 150; // of the mantissa's last bit
    const double4 magnitude = mantissa * as_double4(convert_ulong4(scale + 1023) << 52);
    const double4 value = select(magnitude, -magnitude, convert_long4(as_int4(bits) < 0));
    return select(value, convert_double4(x), convert_long4(exponent == 0xff)); // NaN, inf
#else
    return x;
#endif
}

/// Adds the finite double x, a multiple of 2^LOWEST_BIT, to the digits: its 53-bit mantissa,
/// shifted to its place, is cut into the three 32-bit digits it overlaps.
void spill(local long* digits, double x) {
    const ulong bits = as_ulong(x);
    const int exponent = (int)((bits >> 52) & 0x7ff);
    ulong mantissa = (bits & 0xfffffffffffffUL) | (exponent != 0 ? 1UL << 52 : 0);
    // The position of the mantissa's last bit above 2^LOWEST_BIT. A float's value widened to
    // double lies on the float grid: its mantissa's bits below that grid are zero.
    int position = max(exponent, 1) - 1075 - LOWEST_BIT;
    if (position < 0) {
        mantissa >>= -position;
        position = 0;
    }
    const int limb = position / DIGIT_BITS;
    const int shift = position % DIGIT_BITS;
    // The shifted mantissa's 96 bits without a 128-bit type; the shifts stay below 64.
    const long low = (long)((mantissa << shift) & DIGIT_MASK);
    const long middle = (long)((mantissa >> (DIGIT_BITS - shift)) & DIGIT_MASK);
    const long high = (long)((mantissa >> DIGIT_BITS) >> (DIGIT_BITS - shift));
    const long sign = (bits >> 63) != 0 ? -1 : 1;
    atom_add(&digits[limb], sign * low);
    atom_add(&digits[limb + 1], sign * middle);
    atom_add(&digits[limb + 2], sign * high);
}

/// Which lanes of x are finite: x - x is 0 there and NaN for NaN and infinities. Cheaper
/// than isfinite() on PoCL, where that took two thirds of the kernel's time.
inline long4 finite(double4 x) {
    return x - x == (double4)0;
}

/// Spills each nonzero lane of x into the digits.
void spill_lanes(local long* digits, double4 x) {
    double lanes[4];
    vstore4(x, 0, lanes);
    for (int lane = 0; lane < 4; ++lane)
        if (lanes[lane] != 0)
            spill(digits, lanes[lane]);
}

/// Adds x to one entry of the expansions with TwoSum: the entry keeps the rounded sum, and
/// the exact rounding error is returned. Where the sum would overflow, the digits take x as it
/// is instead.
inline double4 two_sum(double4* entry, double4 x, local long* digits) {
    const double4 sum = *entry + x;
    const double4 virtual_x = sum - *entry;
    const double4 error = (*entry - (sum - virtual_x)) + (x - virtual_x);
    const long4 exact = finite(error);
    if (!all(exact))
        spill_lanes(digits, select(x, (double4)0, exact));
    *entry = select(*entry, sum, exact);
    return select((double4)0, error, exact);
}

/// Adds x to the expansions without rounding: each lane is an expansion of its own, so that
/// four TwoSum chains run side by side. Each entry carries its rounding error on to the next,
/// usually none: most values cost one TwoSum. What the last entry cannot take spills into the
/// digits. Written out, not as a loop, so that the entries stay in registers.
inline void deposit(double4 x, double4* expansion, local long* digits) {
    x = two_sum(&expansion[0], x, digits);
    if (!any(x != 0))
        return;
    x = two_sum(&expansion[1], x, digits);
    if (!any(x != 0))
        return;
    x = two_sum(&expansion[2], x, digits);
    if (any(x != 0))
        spill_lanes(digits, x);
}

/// Counts the NaNs and infinities among x in their entries of the row, and leaves zeros in
/// their place.
double4 count_specials(double4 x, local long* digits) {
    double lanes[4];
    vstore4(x, 0, lanes);
    for (int lane = 0; lane < 4; ++lane)
        if (!isfinite(lanes[lane]))
            atom_inc(&digits[isnan(lanes[lane]) ? NAN_COUNT
                             : lanes[lane] > 0  ? POSITIVE_INFINITY_COUNT
                                                : NEGATIVE_INFINITY_COUNT]);
    return select((double4)0, x, finite(x));
}

/// Adds four values to a work-item's expansions.
inline void add_values(VALUE4 values, double4* expansion, local long* digits) {
    double4 x = widen(values);
    if (!all(finite(x)))
        x = count_specials(x, digits);
    deposit(x, expansion, digits);
}

/// Zeroes the work-group's row.
void clear(local long* digits) {
    for (size_t entry = get_local_id(0); entry < ROW_WIDTH; entry += get_local_size(0))
        digits[entry] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/// Once every work-item has added its digits: carries every limb's excess into the next,
/// leaving digits in [0, 2^32) below the top limb, which keeps the sign (then up to 2^31 rows
/// add up without overflow), and writes the row to `row`. One work-item does it: 70 steps.
void normalise_into(local long* accumulator, global long* row) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) != 0)
        return;
    long carry = 0;
    for (int limb = 0; limb < LIMBS - 1; ++limb) {
        const long sum = accumulator[limb] + carry;
        accumulator[limb] = sum & (long)DIGIT_MASK;
        carry = sum >> DIGIT_BITS; // arithmetic: a negative sum borrows
    }
    accumulator[LIMBS - 1] += carry;
    for (int entry = 0; entry < ROW_WIDTH; ++entry)
        row[entry] = accumulator[entry];
}

/// The first pass: each work-group writes the exact sum of its share of the `length` values
/// of `input` from `first` on as one row of `rows`, from row `first_row` on. Work-items read
/// four values at a time. On a GPU they read with the global size as stride, so neighbours
/// read neighbouring vectors (coalesced); on a CPU (-D CONTIGUOUS) each reads a run of its
/// own, as a core's cache wants. The first work-item adds the last length % 4 values.
kernel void exact_partials(global const VALUE* input, ulong first, ulong length, global long* rows,
                           ulong first_row) {
    local long digits[ROW_WIDTH];
    clear(digits);
    double4 expansion[EXPANSION] = {0};
    const ulong vectors = length / 4;
#ifdef CONTIGUOUS
    const ulong run = (vectors + get_global_size(0) - 1) / get_global_size(0);
    const ulong start = get_global_id(0) * run;
    const ulong end = min(start + run, vectors);
    const ulong step = 1;
#else
    const ulong start = get_global_id(0);
    const ulong end = vectors;
    const ulong step = get_global_size(0);
#endif
    for (ulong i = start; i < end; i += step)
        add_values(vload4(i, input + first), expansion, digits);
    if (get_global_id(0) == 0)
        for (ulong tail = vectors * 4; tail < length; ++tail)
            add_values((VALUE4)(input[first + tail], 0, 0, 0), expansion, digits);
    for (int k = 0; k < EXPANSION; ++k)
        spill_lanes(digits, expansion[k]);
    normalise_into(digits, rows + (first_row + get_group_id(0)) * ROW_WIDTH);
}

/// The second pass: each work-group adds up `count` rows of `rows` (a share of them, with
/// the global size as stride) into one row of `merged`.
kernel void exact_merge(global const long* rows, ulong count, global long* merged) {
    local long digits[ROW_WIDTH];
    clear(digits);
    for (ulong row = get_global_id(0); row < count; row += get_global_size(0))
        for (int entry = 0; entry < ROW_WIDTH; ++entry)
            atom_add(&digits[entry], rows[row * ROW_WIDTH + entry]);
    normalise_into(digits, merged + get_group_id(0) * ROW_WIDTH);
}
