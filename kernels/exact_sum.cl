// The exact sum of float or double values (and of float16 and bfloat16 ones, loaded as
// floats), as a lesson in reproducible reduction.
//
// A floating-point sum's result depends on the order of its additions, because each one
// rounds. Integer addition does not round, so it is associative: any order of any tree gives
// the same bits. This kernel therefore turns every value into an integer: the fixed-point
// number whose unit is the type's smallest subnormal value (2^LOWEST_BIT), wide enough for
// the type's largest value times 2^64. That integer is held in LIMBS signed 64-bit limbs,
// each of which carries one 32-bit digit: a limb can take some 2^31 more digits before it
// must carry into the next one, so carries are deferred: a work-group passes each limb's
// excess up one limb once (add_row_into()), and the rounding normalises the sum once. A
// work-group's limbs are in local memory, and its work-items add their digits there with
// 64-bit atomic adds; the work-groups then add their rows into the sum's row in global memory
// the same way. Integer atomics commute, so their order changes nothing. The host, or
// exact_round(), rounds the final integer once, to nearest even (clreduce/exact.hpp), so the
// result is the exact sum correctly rounded, on every device.
//
// Speed: turning a value into digits costs some 20 instructions and three atomics. Most
// values never get there: each work-item first adds its values to short floating-point
// expansions (three double4 or double2, kept in registers) with TwoSum, which is exact; only
// what an expansion cannot hold spills into the digits (ExBLAS's design). Each lane of the
// vector is an expansion of its own, so four or two values go in side by side. At the end the
// work-items fold their expansions into one, exactly, and only that one spills: digits added by
// every work-item land on the same few limbs, where atomics wait for each other. Most float
// values skip even the TwoSum: where their magnitudes show that plain double additions sum
// them exactly, they are added so, on CPUs in blocks (add_blocks()) and on GPUs in chains
// (add_vectors()), and only those sums are deposited; doubles skip it too, in splitter sums
// (on CPUs in chains of blocks, on GPUs in chains of turns of loads).
//
// Build options: -D VALUE=float|double|half|ushort (the input's type), -D LIMBS=<limbs>,
// -D LOWEST_BIT=<-149|-1074>, -D VALUE_IS_FLOAT for float input (also for float16, with
// -D VALUE_IS_HALF, and bfloat16 held as ushort, with -D VALUE_IS_BFLOAT16), and
// -D CONTIGUOUS on CPUs. Needs cl_khr_fp64 (the expansions are in double, where no sum of
// floats overflows) and cl_khr_int64_base_atomics.
//
// Along an axis, many sums at once: exact_short_runs() sums short runs a work-item each, and
// exact_runs() longer ones a work-group each, or in chunks of a work-group that exact_round()
// rounds after (ExactSum::plan_runs() chooses; docs/exact-sums.md).
//
// An accumulator row, as exact_partials() adds to it and the host reads it: LIMBS limbs,
// least significant first, then the counts of NaNs, of +infinities and of -infinities met,
// which add up as integers too and decide the result when nonzero.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

#define NAN_COUNT LIMBS
#define POSITIVE_INFINITY_COUNT (LIMBS + 1)
#define NEGATIVE_INFINITY_COUNT (LIMBS + 2)
#define ROW_WIDTH (LIMBS + 3)

#define DIGIT_BITS 32
#define DIGIT_MASK 0xffffffffUL
#define EXPANSION 3   // entries of a work-item's expansions (deposit() writes them out)
#define FOLD_SLOTS 64 // work-items that hand every entry over in one step of fold_entries()

// Mutation hooks: the steps that the test mutants (test/CMakeLists.txt) redefine, with -D or a
// #define ahead of this file, to lose the last value of a work-item's run, the last
// work-group's row, the entries that fold() leaves behind, what fold()'s additions spill, the
// last of a block's sums (on CPUs), or the carries between limbs; or to add a chain of double
// blocks' lanes into one, past what a double holds; or to ignore what a double block's sums
// lose, or a chain of double blocks' or turns' bound, or loosen the bound within which plain
// double sums of floats are exact, or the count of float16 values a lane that they sum
// exactly, or the span or the largest exponent of bfloat16 values whose float sums of four are
// exact, or the magnitude down to which a GPU's chain of double turns takes values, or the
// bound below which a turn of doubles, or a step of the fold, skips the overflow guard. A hook
// this file stopped using would leave its mutant a working kernel, which the mutant tests then
// fail.
#ifndef EXACT_IN_RUN
#define EXACT_IN_RUN(i, end) ((i) < (end))
#endif
#ifndef EXACT_ADDS_ROW
#define EXACT_ADDS_ROW(group) true
#endif
#ifndef EXACT_LEFT_BEHIND
#define EXACT_LEFT_BEHIND(entry) (entry)
#endif
#ifndef EXACT_FOLD_SPILL
#define EXACT_FOLD_SPILL(left) (left)
#endif
#ifndef EXACT_BLOCK_SUM
#define EXACT_BLOCK_SUM(sum) (sum)
#endif
#ifndef EXACT_LANE_PAIRS
#define EXACT_LANE_PAIRS(pairs) (pairs)
#endif
#ifndef EXACT_SPLIT_LOST
#define EXACT_SPLIT_LOST(rest) (rest)
#endif
#ifndef EXACT_BELOW_BOUND
#define EXACT_BELOW_BOUND(largest, bound) all((largest) < (bound))
#endif
#ifndef EXACT_SUM_BITS
#define EXACT_SUM_BITS 29 // see sums_exactly()
#endif
#ifndef EXACT_TURN_BOUND
#define EXACT_TURN_BOUND 0x7bf00000u // the high word of 2^960 (below_overflow())
#endif
#ifndef EXACT_HALF_VALUES_A_LANE
#define EXACT_HALF_VALUES_A_LANE (1ul << 13) // see halves_sum_exactly()
#endif
#ifndef EXACT_QUAD_SPAN
#define EXACT_QUAD_SPAN 14 // binades; see quads_sum_exactly()
#endif
#ifndef EXACT_QUAD_TOP
#define EXACT_QUAD_TOP 252 // a biased float exponent; see quads_sum_exactly()
#endif
#ifndef EXACT_LOW_REACH
#define EXACT_LOW_REACH 33 // binades below a chain's bound (see takes_turn())
#endif
#ifndef EXACT_CARRY
#define EXACT_CARRY(sum) ((sum) >> DIGIT_BITS) // arithmetic: a negative sum borrows
#endif

// How values are loaded, four at a time (LOAD4) or one (LOAD), into LOADED (LOADED4): float
// and double as they are; float16 and bfloat16, every value of which is exactly a float, as
// floats (and sixteen at a time, LOAD16, as a float16 vector: a CPU's float blocks).
#if defined(VALUE_IS_HALF)
#define LOAD4(v, in) vload_half4(v, in)
#define LOAD16(v, in) vload_half16(v, in)
#define LOAD(i, in) vload_half(i, in)
#elif defined(VALUE_IS_BFLOAT16)
#define LOAD4(v, in) as_float4(convert_uint4(vload4(v, in)) << 16)
#define LOAD16(v, in) as_float16(convert_uint16(vload16(v, in)) << 16)
#define LOAD(i, in) as_float((uint)(in)[i] << 16)
#else
#define LOAD4(v, in) vload4(v, in)
#define LOAD16(v, in) vload16(v, in)
#define LOAD(i, in) (in)[i]
#endif
#ifdef VALUE_IS_FLOAT
#define LOADED4 float4
#else
#define LOADED4 double4
#endif

// The lanes of a work-item's expansions: what ran fastest on the H100, with four loads in
// flight (add_vectors()). Sums of floats (and of float16 and bfloat16 values, loaded as
// floats) keep two lanes (double2), whose registers let the four loads and the chains (below)
// stay within the 64 registers a work-item that 4 work-groups of 256 an SM leave: 364 us
// against 378 at 2^28 floats with four lanes; with four lanes and two loads, float16's
// chains took 74 registers and a second wave, 351 us at 2^28 against 204 so. Doubles on GPUs
// keep two lanes too: with four their kernel took 136 registers, more than the 128 that two
// work-groups of 256 an SM leave, with two 93; 2^24 doubles 51.2 to 52.2 us against 52.4 to
// 53.0 (the plain sum 49.8 to 50.6). On CPUs doubles keep four, a vector of their blocks' sums
// (docs/exact-sums.md).
#if defined(VALUE_IS_FLOAT) || !defined(CONTIGUOUS)
#define LANES 2
#else
#define LANES 4
#endif
#define PASTE(a, b) a##b
#define LANES_OF_(type, lanes) PASTE(type, lanes)
#define LANES_OF(type) LANES_OF_(type, LANES) // vstore2 or vstore4
typedef LANES_OF(double) doubleN;             // an entry of the expansions: double2 or double4

/// Four values as doubles, exactly. Every float but a subnormal converts exactly; a vector
/// with a subnormal is decoded from its bits instead, so that a device that flushes float
/// subnormals to zero (as some GPUs' float units do) still adds them.
inline double4 widen(LOADED4 x) {
#ifdef VALUE_IS_FLOAT
    const uint4 bits = as_uint4(x);
    const uint4 exponent = (bits >> 23) & 0xff;
    if (!any((exponent == 0) & ((bits & 0x7fffff) != 0)))
        return convert_double4(x);
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
void spill_lanes(local long* digits, doubleN x) {
    double lanes[LANES];
    LANES_OF(vstore)(x, 0, lanes);
    for (int lane = 0; lane < LANES; ++lane)
        if (lanes[lane] != 0)
            spill(digits, lanes[lane]);
}

// Whether a sum of an entry of the expansions and a value may overflow: never for float values
// (2^64 of the largest float are 2^192), but for doubles, unless add_vectors() has checked the
// turn (below_overflow()).
#ifdef VALUE_IS_FLOAT
#define MAY_OVERFLOW false
#else
#define MAY_OVERFLOW true
#endif

/// Adds x to one entry of the expansions with TwoSum: the entry keeps the rounded sum, and
/// the exact rounding error is returned. Where the sum may overflow and does, the digits take
/// x as it is instead.
inline doubleN two_sum(doubleN* entry, doubleN x, bool may_overflow, local long* digits) {
    const doubleN sum = *entry + x;
    const doubleN virtual_x = sum - *entry;
    const doubleN error = (*entry - (sum - virtual_x)) + (x - virtual_x);
#ifndef VALUE_IS_FLOAT
    if (may_overflow) {
        const LANES_OF(long) exact = error - error == (doubleN)0; // finite(), lane by lane
        if (!all(exact))
            spill_lanes(digits, select(x, (doubleN)0, exact));
        *entry = select(*entry, sum, exact);
        return select((doubleN)0, error, exact);
    }
#endif
    *entry = sum;
    return error;
}

/// Adds x to the expansions without rounding: each lane is an expansion of its own, so that
/// two or four TwoSum chains run side by side. Each entry carries its rounding error on to the
/// next: none for most float values, which cost one TwoSum; doubles with all 53 bits cost two.
/// What the last entry cannot take spills into the digits. Written out, not as a loop, so that
/// the entries stay in registers.
inline void deposit(doubleN x, doubleN* expansion, local long* digits, bool may_overflow) {
    x = two_sum(&expansion[0], x, may_overflow, digits);
    if (!any(x != 0))
        return;
    x = two_sum(&expansion[1], x, may_overflow, digits);
    if (!any(x != 0))
        return;
    x = two_sum(&expansion[2], x, may_overflow, digits);
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

/// Adds four finite doubles to the expansions: half a vector a lane, where the lanes are two.
inline void deposit4_checked(double4 x, doubleN* expansion, local long* digits, bool may_overflow) {
#if LANES == 2
    deposit(x.lo, expansion, digits, may_overflow);
    deposit(x.hi, expansion, digits, may_overflow);
#else
    deposit(x, expansion, digits, may_overflow);
#endif
}

/// deposit4_checked() where nothing is known of x's and the entries' magnitudes.
inline void deposit4(double4 x, doubleN* expansion, local long* digits) {
    deposit4_checked(x, expansion, digits, MAY_OVERFLOW);
}

/// Adds four values to a work-item's expansions.
inline void add_values(LOADED4 values, doubleN* expansion, local long* digits) {
    double4 x = widen(values);
    if (!all(finite(x)))
        x = count_specials(x, digits);
    deposit4(x, expansion, digits);
}

/// The high words of x's magnitudes, which order them as the magnitudes do (NaN above all).
inline LANES_OF(uint) entry_high_words(doubleN x) {
    return LANES_OF(convert_uint)(LANES_OF(as_ulong)(x) >> 32) & 0x7fffffffu;
}

/// Whether a TwoSum of an entry of `expansion` and one of `other`, or of their errors on down
/// the entries, may overflow: never for float values (MAY_OVERFLOW), and for doubles only where
/// an entry reaches 2^960 in magnitude (EXACT_TURN_BOUND, as below_overflow() tests a turn of
/// loads).
inline bool entries_may_overflow(const doubleN* expansion, local const doubleN* other) {
    if (!MAY_OVERFLOW)
        return false;
    LANES_OF(uint) largest = 0;
    for (uint k = 0; k < EXPANSION; ++k)
        largest = max(largest, max(entry_high_words(expansion[k]), entry_high_words(other[k])));
    return !all(largest < EXACT_TURN_BOUND);
}

/// Adds the expansions `other` into `expansion`, exactly: entry k to entry k, the TwoSums side
/// by side, and their errors on down the later entries; only what the last entry cannot hold
/// spills. No branch but that spill's and the overflow test's, where deposit() has one after
/// each TwoSum: on the H200 those branches were most of the time of a fold that hands every
/// entry over, and 2^20 normal doubles took 13.3 us so against 16.4 (the plain sum 8.4), 2^24
/// 46.1 against 49.8 (docs/exact-sums.md). Where a sum may overflow, each entry takes
/// deposit()'s guarded way instead.
inline void add_expansion(doubleN* expansion, local const doubleN* other, local long* digits) {
    if (entries_may_overflow(expansion, other)) {
        for (uint k = 0; k < EXPANSION; ++k)
            deposit(other[k], expansion, digits, MAY_OVERFLOW);
        return;
    }
    doubleN error0 = two_sum(&expansion[0], other[0], false, digits);
    doubleN error1 = two_sum(&expansion[1], other[1], false, digits);
    const doubleN error2 = two_sum(&expansion[2], other[2], false, digits);
    error0 = two_sum(&expansion[1], error0, false, digits);
    error0 = two_sum(&expansion[2], error0, false, digits);
    error1 = two_sum(&expansion[2], error1, false, digits);
    if (any((error0 != 0) | (error1 != 0) | (error2 != 0))) {
        spill_lanes(digits, EXACT_FOLD_SPILL(error0));
        spill_lanes(digits, EXACT_FOLD_SPILL(error1));
        spill_lanes(digits, EXACT_FOLD_SPILL(error2));
    }
}

/// Zeroes the work-group's row, and fold()'s flag.
void clear(local long* digits, local uint* deep) {
    for (size_t entry = get_local_id(0); entry < ROW_WIDTH; entry += get_local_size(0))
        digits[entry] = 0;
    if (get_local_id(0) == 0)
        *deep = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/// How many entries of each expansion fold() hands over: all of them where any work-item's
/// later entries hold something, else only the first. Float values, and doubles with few
/// bits, mostly leave the later entries zero, and handing those over was most of the fold's
/// time (docs/exact-sums.md). `deep` is zero before the call.
uint entries_to_hand(const doubleN* expansion, local uint* deep) {
    if (any(expansion[1] != 0) || any(expansion[2] != 0))
        atomic_or(deep, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    return *deep != 0 ? EXPANSION : 1;
}

/// Adds every work-item's expansions into work-item 0's, exactly (what they cannot hold
/// spills), so that only those doubles (six or twelve) spill at the end instead of every
/// work-item's adding to the same few limbs, atomics that then wait for each other. In each step
/// the last work-items still holding expansions hand their first `handed` entries (one, or all
/// EXPANSION) over in `slots` (FOLD_SLOTS * EXPANSION entries) to as many before them, which
/// deposit() the first entry or add_expansion() them all. Called with a constant `handed`, so
/// that each call compiles to a loop of its own.
inline void fold_entries(doubleN* expansion, local long* digits, local doubleN* slots,
                         const uint handed) {
    const uint id = get_local_id(0);
    for (uint holding = get_local_size(0); holding > 1;) {
        const uint handing = min(holding / 2, (uint)(FOLD_SLOTS * EXPANSION) / handed);
        const uint first_handing = holding - handing;
        barrier(CLK_LOCAL_MEM_FENCE); // the last step's slots are read
        if (id >= first_handing && id < holding)
            for (uint k = 0; k < handed; ++k)
                slots[(id - first_handing) * handed + k] = expansion[k];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (id >= first_handing - handing && id < first_handing) {
            local const doubleN* other = slots + (id - (first_handing - handing)) * handed;
            if (handed == EXPANSION)
                add_expansion(expansion, other, digits);
            else // first entries, mostly with nothing to carry on: deposit() stops early
                deposit(other[0], expansion, digits, MAY_OVERFLOW);
        }
        holding = first_handing;
    }
}

/// Folds the work-group's expansions into work-item 0's (fold_entries()): every entry, where
/// any work-item's later entries hold something; else the first entries alone, and where a
/// receiver's additions filled its later entries, it spills them at the end.
void fold(doubleN* expansion, local long* digits, local doubleN* slots, local uint* deep) {
    if (entries_to_hand(expansion, deep) == EXPANSION) {
        fold_entries(expansion, digits, slots, EXPANSION);
        return;
    }
    fold_entries(expansion, digits, slots, 1);
    if (get_local_id(0) != 0) { // work-item 0's spill in spill_folded()
        spill_lanes(digits, EXACT_LEFT_BEHIND(expansion[1]));
        spill_lanes(digits, EXACT_LEFT_BEHIND(expansion[2]));
    }
}

/// Spills work-item 0's expansions, the work-group's after fold(), into the digits, a double
/// a work-item: six or twelve spills side by side rather than one after another.
void spill_folded(const doubleN* expansion, local long* digits, local doubleN* slots) {
    if (get_local_id(0) == 0)
        for (int k = 0; k < EXPANSION; ++k)
            slots[k] = expansion[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    local const double* folded = (local const double*)slots;
    for (size_t lane = get_local_id(0); lane < EXPANSION * LANES; lane += get_local_size(0))
        if (folded[lane] != 0)
            spill(digits, folded[lane]);
}

/// Once every work-item has added its digits: adds the work-group's row into `sum`, each
/// entry by a work-item of its own, with a 64-bit atomic add (integer adds commute, so the
/// order in which the work-groups arrive changes no bit). Each limb keeps its digit and
/// passes its excess up one limb first: every entry is then below 2^33 in magnitude, so that
/// some 2^30 rows add up without overflow. (A full normalisation is a chain through every
/// limb on one work-item; the rounding does it once, for the sum.) Zero entries, most of a
/// row's, are skipped.
void add_row_into(local const long* digits, global long* sum) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!EXACT_ADDS_ROW(get_group_id(0)))
        return;
    for (size_t entry = get_local_id(0); entry < ROW_WIDTH; entry += get_local_size(0)) {
        long value = digits[entry];
        if (entry < LIMBS - 1) // the top limb keeps the sign, and its excess
            value &= (long)DIGIT_MASK;
        if (entry > 0 && entry < LIMBS)
            value += EXACT_CARRY(digits[entry - 1]);
        if (value != 0)
            atom_add(&sum[entry], value);
    }
}

/// The vectors (of four values) [first, end) that work-item `item` of `items` reads. On a GPU they
/// read with `items` as stride, so neighbours read neighbouring vectors (coalesced); on a CPU
/// (-D CONTIGUOUS) each reads a run of its own, as a core's cache wants.
typedef struct {
    ulong start, end, step;
} Stride;
Stride stride_of(ulong first, ulong end, ulong item, ulong items) {
#ifdef CONTIGUOUS
    const ulong run = (end - first + items - 1) / items;
    const ulong start = min(first + item * run, end);
    return (Stride){start, min(start + run, end), 1};
#else
    return (Stride){first + item, end, items};
#endif
}

#ifdef VALUE_IS_FLOAT
/// Whether plain double additions sum float values exactly (CPUs' blocks and GPUs' chains add
/// them so): no NaN, infinity or float subnormal among them, and with n values a lane
/// (largest and smallest the biased exponents of their largest and smallest nonzero
/// magnitudes, given as float bits, the smallest less one: a zero, less one, wraps around to
/// the largest unsigned integer) n * 2^(largest - smallest) <= 2^EXACT_SUM_BITS. Every value
/// then lies on the grid of 2^(smallest - 150), every partial sum of a lane is below
/// n * 2^(largest - 126), so within the 2^53 steps of that grid a double holds: 2^29 is a
/// double's 53 bits less a float's 24. All zeros pass (their sum is 0).
inline bool sums_exactly(uint largest, uint smallest_less_one, ulong values_a_lane) {
    const uint smallest = smallest_less_one + 1; // 0 where every value is zero
    const uint span = (largest >> 23) - (smallest >> 23);
    return smallest == 0 ||
           (largest < 0x7f800000 && smallest >= 0x800000 && span <= EXACT_SUM_BITS &&
            (values_a_lane << span) <= (1ul << EXACT_SUM_BITS));
}
#endif

#ifndef VALUE_IS_FLOAT
// Doubles: a double's 53 bits leave no room for plain sums to be exact, so runs of them go in
// chains of splitter sums (CPUs' blocks, GPUs' turns of loads). Every value of a chain is below
// its bound, 2^E. A high sum starts at a splitter, 1.5 * 2^(E + 10), and stays within a
// quarter of its binade: each addition rounds the value to the splitter's grid, and the rest,
// exact (Fast2Sum: the splitter is the larger), goes to a low sum that starts at
// 1.5 * 2^(E - 33). Where the low sums' additions lose nothing, the sums less their splitters
// (exact: within a factor 2 of each other) hold the chain's sum exactly.
//
// The bounds: a lane adds up to SPLIT_VALUES_A_LANE = 2^8 values, whose sum is below
// 2^(E + 8), a quarter of the high splitter's binade 2^(E + 10); each rest is at most half an
// ulp of a high sum, 2^(E - 43), and 2^8 of them add up to less than 2^(E - 35), a quarter of
// the low splitter's binade 2^(E - 33), whose ulp, 2^(E - 85), is the grid of values from
// 2^(E - 33) up.
#define SPLIT_VALUES_A_LANE 256
#define HIGH_SPLITTER 0x1.8p10 // times the bound
#define LOW_SPLITTER 0x1.8p-33

/// The bound of a chain whose first values' largest magnitude has the biased exponent
/// `biased`, `headroom` binades above it; 0 where its splitters would not be finite and normal
/// (past 2^1013 or below 2^-989: values that take TwoSum).
inline double chain_bound(int biased, int headroom) {
    const int exponent = biased - 1022 + headroom;
    return exponent > 1013 || exponent < -989 ? 0 : as_double((ulong)(exponent + 1023) << 52);
}
#endif

#ifdef CONTIGUOUS
#ifdef PREFETCH_BYTES
// On PoCL's CPU devices (-D PREFETCH_BYTES) a block's loop asks for the lines that lie that
// many bytes ahead of the ones it reads: with the hardware's prefetcher alone a core's run
// waited on memory, and 2^27 doubles took 14.0 ms on the 16-core PoCL, 11.8 so; 2^28 floats
// 14.3 and 9.5 (docs/exact-sums.md, "Prefetching the blocks"). A prefetch is a hint that never
// faults, so the lines past the buffer's end need no test.
inline void prefetch_ahead(global const VALUE* at, uint bytes) {
    for (uint line = 0; line < bytes; line += 64)
        __builtin_prefetch((global const char*)at + PREFETCH_BYTES + line, 0, 3);
}
#else
#define prefetch_ahead(at, bytes)
#endif

// On CPUs, values go in blocks of 256 (BLOCK_VECTORS) that most data lets plain double
// additions sum exactly, in sums that a CPU vectorises, where the TwoSum and the tests of
// deposit() run as one chain a work-item. Blocks that qualify chain, and only a chain's sums
// are deposited (below); a block that does not qualify goes value by value. 2^24 random
// floats took 3.4 ms in blocks on the 2-core PoCL against 15.4 value by value (the plain sum
// 2.3), doubles 10 against 23 (docs/exact-sums.md).
//
// A block's loops take sixteen values a step, one for each lane of double16 sums, which the
// compiler gives four registers where a CPU's vectors hold four doubles (AVX2) and two where
// they hold eight (AVX-512). As four double4 sums they ran four doubles an instruction on
// AVX-512 too: on the 16-core PoCL, float16 and bfloat16 values take 0.63 to 0.86 times the
// time so, doubles 0.80 to 0.86 from 2^20 to 2^22 and 0.92 to 0.98 past the cache; floats
// 0.84 to 1.2 (docs/exact-sums.md). On the 2-core machine's AVX2 the two run alike.
#define BLOCK_VECTORS 64                             // a block's vectors of four values: 256 values
#define BLOCK_STEP 16                                // values a step: a lane each of a double16
#define BLOCK_STEPS (4 * BLOCK_VECTORS / BLOCK_STEP) // a block's steps: its values a lane

#ifdef VALUE_IS_FLOAT
// Float values (float16 and bfloat16 loaded as floats): where a block has no NaN, infinity or
// float subnormal and its exponents span few binades, its sums are exact
// (sums_exactly(): sixteen values a lane, while largest - smallest <= 25). The blocks that
// follow add into the same sums, a chain of blocks, for as long as the sums stay exact: n
// blocks, 16n values a lane, while n * 2^(largest - smallest) <= 2^25, largest and smallest
// now the chain's. Only a chain's sums are deposited, once; random data chains hundreds of blocks.
// With each block's sums deposited, and four values a load, 2^24 random floats took 0.63 to 0.77 ms
// on the 16-core PoCL, against 0.48 to 0.55 so (docs/exact-sums.md).

#ifdef VALUE_IS_HALF
// float16 blocks need no magnitudes noted: every float16 value is a multiple of 2^-24, the
// least float16 subnormal, below 2^16 in magnitude, so a double sum of up to 2^13 of them (a
// lane's, 512 blocks) stays below 2^29, within the 2^53 steps of that grid that a double
// holds, and is exact. A NaN or an infinity makes such a sum NaN or infinite, which no sum of
// finite float16 values is. Noting magnitudes, 2^24 float16 values took 1.45 times as long on
// the 16-core PoCL (docs/exact-sums.md).

/// Whether plain double additions summed float16 values exactly, at most `values_a_lane` of
/// them a lane, whose lanes' sums add up to `sum`: none a NaN or an infinity.
inline bool halves_sum_exactly(double sum, ulong values_a_lane) {
    return values_a_lane <= EXACT_HALF_VALUES_A_LANE && sum - sum == 0;
}
#endif

/// Sums of blocks: sixteen lanes, lane j adding values 16m + j of each block (BLOCK_STEP),
/// with their values' largest magnitude and smallest nonzero one, as the bits of floats (the
/// smallest less one: a zero, less one, wraps around to the largest unsigned integer, so it is
/// never the smallest).
typedef struct {
    double16 sum;
    uint largest, smallest_less_one;
    uint blocks;
} BlockSums;

#ifdef VALUE_IS_HALF
#define note_magnitudes(largest, smallest_less_one, v) // none (halves_sum_exactly())
#elif !defined(VALUE_IS_BFLOAT16) // whose blocks note them from their bits (note_bits())
/// Notes the magnitudes of v's values in `largest` and `smallest_less_one`.
inline void note_magnitudes(uint16* largest, uint16* smallest_less_one, float16 v) {
    const uint16 magnitude = as_uint16(v) & 0x7fffffff;
    *largest = max(*largest, magnitude);
    *smallest_less_one = min(*smallest_less_one, magnitude - 1);
}
#endif

/// A block's sums, with the magnitudes that its lanes noted gathered into one of each.
inline BlockSums block_sums(double16 sum, uint16 largest, uint16 smallest_less_one) {
    const uint8 largest8 = max(largest.lo, largest.hi);
    const uint8 smallest8 = min(smallest_less_one.lo, smallest_less_one.hi);
    const uint4 largest4 = max(largest8.lo, largest8.hi);
    const uint4 smallest4 = min(smallest8.lo, smallest8.hi);
    const uint2 largest2 = max(largest4.lo, largest4.hi);
    const uint2 smallest2 = min(smallest4.lo, smallest4.hi);
    const BlockSums sums = {sum, max(largest2.x, largest2.y), min(smallest2.x, smallest2.y), 1};
    return sums;
}

#ifdef VALUE_IS_BFLOAT16
// bfloat16 blocks add each four of a lane's values in float, and widen only that sum to a
// double: a bfloat16 value has 8 significant bits, so a float's 24 hold the sum of four where
// their exponents span at most EXACT_QUAD_SPAN binades (quads_sum_exactly()); a block whose
// values span more is summed again, each value widened, from the cache. A CPU's time on these
// blocks went to widening values and noting magnitudes, not to reading them: on the 16-core
// PoCL, 2^24 values took 1.54 to 1.63 times the plain sum's time with each value widened, 1.16
// to 1.22 times so (docs/exact-sums.md). The magnitudes are noted on the values' bits, in
// 16-bit lanes: where a CPU's vectors are 256 bits wide, half the instructions of 32-bit ones.

/// Whether float additions sum any four of a block's bfloat16 values exactly, given the
/// block's largest magnitude and its smallest nonzero one less one as float bits (as
/// sums_exactly()): their biased exponents at most EXACT_QUAD_TOP and at least 8, and at most
/// EXACT_QUAD_SPAN apart (no NaN, infinity or subnormal among them). Each value is then a
/// multiple of the smallest one's last bit, 2^(smallest - 134), and below 2^(largest - 126):
/// four add up to less than 2^(largest - 124), within the 2^24 steps of that grid that a float
/// holds, and within a float's range, below 2^128. A nonzero sum is then at least 2^-126, a
/// normal float, which no device flushes to zero.
inline bool quads_sum_exactly(uint largest, uint smallest_less_one) {
    const uint smallest = smallest_less_one + 1; // 0 where every value is zero
    const uint span = (largest >> 23) - (smallest >> 23);
    return smallest == 0 ||
           ((largest >> 23) <= EXACT_QUAD_TOP && (smallest >> 23) >= 8 && span <= EXACT_QUAD_SPAN);
}

/// The floats whose high halves are the bfloat16 values' bits.
inline float16 bfloat16_floats(ushort16 bits) {
    return as_float16(convert_uint16(bits) << 16);
}

/// Notes the magnitudes of bfloat16 values, from their bits, in `largest` and `smallest_less_one`.
inline void note_bits(ushort16* largest, ushort16* smallest_less_one, ushort16 bits) {
    const ushort16 magnitude = bits & (ushort)0x7fff;
    *largest = max(*largest, magnitude);
    *smallest_less_one = min(*smallest_less_one, magnitude - (ushort)1);
}

/// The sums of the bfloat16 block from vector i on: each lane's values four at a time, added
/// in float where quads_sum_exactly() allows it, else one at a time, with their magnitudes.
inline BlockSums sum_block(global const VALUE* values, ulong i) {
    double16 sum = 0;
    ushort16 largest = 0, smallest_less_one = USHRT_MAX;
    global const VALUE* block = values + 4 * i;
    for (int k = 0; k < BLOCK_STEPS; k += 4) {
        prefetch_ahead(block + BLOCK_STEP * k, 4 * BLOCK_STEP * sizeof(VALUE));
        const ushort16 a = vload16(k, block), b = vload16(k + 1, block), c = vload16(k + 2, block),
                       d = vload16(k + 3, block);
        note_bits(&largest, &smallest_less_one, a);
        note_bits(&largest, &smallest_less_one, b);
        note_bits(&largest, &smallest_less_one, c);
        note_bits(&largest, &smallest_less_one, d);
        sum += convert_double16((bfloat16_floats(a) + bfloat16_floats(b)) +
                                (bfloat16_floats(c) + bfloat16_floats(d)));
    }
    // as float bits: the high halves; a zero's smallest less one wraps around to UINT_MAX
    BlockSums sums = block_sums(sum, convert_uint16(largest) << 16,
                                ((convert_uint16(smallest_less_one) + 1) << 16) - 1);
    if (quads_sum_exactly(sums.largest, sums.smallest_less_one))
        return sums;
    sums.sum = 0;
    for (int k = 0; k < BLOCK_STEPS; ++k)
        sums.sum += convert_double16(LOAD16(k, block));
    return sums;
}
#else
/// The sums of the block from vector i on, with plain double additions that a CPU vectorises,
/// a step of sixteen values at a time, noting their magnitudes as it goes (one pass: a first
/// pass over the magnitudes took 1.3 times as long).
inline BlockSums sum_block(global const VALUE* values, ulong i) {
    double16 sum = 0;
    uint16 largest = 0, smallest_less_one = UINT_MAX;
    global const VALUE* block = values + 4 * i;
    for (int k = 0; k < BLOCK_STEPS; ++k) {
        prefetch_ahead(block + BLOCK_STEP * k, BLOCK_STEP * sizeof(VALUE));
        const float16 step = LOAD16(k, block);
        note_magnitudes(&largest, &smallest_less_one, step);
        sum += convert_double16(step);
    }
    return block_sums(sum, largest, smallest_less_one);
}
#endif

/// Whether plain double additions summed the blocks exactly (sums_exactly(), or
/// halves_sum_exactly() for float16 values).
inline bool exact_sums(BlockSums sums) {
    const ulong values_a_lane = BLOCK_STEPS * (ulong)sums.blocks;
#ifdef VALUE_IS_HALF
    const double8 sum8 = sums.sum.lo + sums.sum.hi;
    const double4 sum4 = sum8.lo + sum8.hi;
    return halves_sum_exactly((sum4.x + sum4.y) + (sum4.z + sum4.w), values_a_lane);
#else
    return sums_exactly(sums.largest, sums.smallest_less_one, values_a_lane);
#endif
}

/// The chain with the block added on (exact where exact_sums() says so of it).
inline BlockSums chained(BlockSums chain, BlockSums block) {
    const BlockSums longer = {chain.sum + block.sum, max(chain.largest, block.largest),
                              min(chain.smallest_less_one, block.smallest_less_one),
                              chain.blocks + block.blocks};
    return longer;
}

/// Deposits the exact sums of a chain of blocks, lane by lane: a lane's sum may take all 53 bits
/// of a double (sums_exactly()), so no two of them need add up exactly.
inline void deposit_sums(BlockSums sums, doubleN* expansion, local long* digits) {
    deposit4(sums.sum.s0123, expansion, digits);
    deposit4(sums.sum.s4567, expansion, digits);
    deposit4(sums.sum.s89ab, expansion, digits);
    deposit4(EXACT_BLOCK_SUM(sums.sum.scdef), expansion, digits);
}

/// Adds the whole blocks of [i, end) to a work-item's expansions, in chains where their sums
/// are exact, else value by value; returns where they end.
inline ulong add_blocks(global const VALUE* values, ulong i, ulong end, doubleN* expansion,
                        local long* digits) {
    const BlockSums none = {0, 0, UINT_MAX, 0};
    BlockSums chain = none;
    for (; EXACT_IN_RUN(i + BLOCK_VECTORS - 1, end); i += BLOCK_VECTORS) {
        const BlockSums block = sum_block(values, i);
        const BlockSums longer = chained(chain, block);
        if (exact_sums(longer)) {
            chain = longer;
            continue;
        }
        if (chain.blocks != 0)
            deposit_sums(chain, expansion, digits);
        chain = none;
        if (exact_sums(block))
            chain = block;
        else
            for (int k = 0; k < BLOCK_VECTORS; ++k)
                add_values(LOAD4(i + k, values), expansion, digits);
    }
    if (chain.blocks != 0)
        deposit_sums(chain, expansion, digits);
    return i;
}
#else
// Doubles: blocks go in chains of splitter sums (above), sixteen lanes of high and of low sums,
// whose low sums' additions must lose nothing (EXACT_SPLIT_LOST). A chain's bound is set from its
// first block, BOUND_HEADROOM binades above its largest magnitude, so that the blocks after it
// are checked against it in the pass that adds them (EXACT_BELOW_BOUND). A block that reaches
// the bound, or whose rests the low sums lose (values more than some 30 binades below the
// first block's largest), is taken back out; the chain is deposited, and the block starts
// another (value by value, where it fails alone). Blocks summed apart, each after a pass for
// its largest magnitude, took 1.3 to 1.8 times as long in two calls on the 16-core PoCL: 2^24
// random doubles 2.25 and 3.05 ms against 1.48 and 1.75 (the plain sum 0.51 and 0.63), 2^27
// 19.4 and 24.1 against 14.7 and 15.8 (9.5 and 10.4; docs/exact-sums.md).
#define CHAIN_BLOCKS (SPLIT_VALUES_A_LANE / BLOCK_STEPS)
#define BOUND_HEADROOM 2

/// A chain of blocks: sixteen lanes of high sums and of low sums, lane j adding values 16m + j
/// of each block (BLOCK_STEP), from their splitters on, for values below `bound`.
typedef struct {
    double16 high, low;
    double bound;
    uint blocks;
} SplitChain;

/// An empty chain for values below `bound`, a power of 2 within the splitters' range.
inline SplitChain split_chain(double bound) {
    const SplitChain chain = {HIGH_SPLITTER * bound, LOW_SPLITTER * bound, bound, 0};
    return chain;
}

/// Adds x to a splitter's sum `high`, and what its grid cannot hold to the sum `low`; ORs
/// into `lost` the bits of what low's grid lost, all zero only where nothing was: one
/// instruction where a comparison took two, and about 0.9 times the time of exact doubles on
/// the 16-core PoCL (docs/exact-sums.md). Subtracted in this order, equal doubles give +0 also
/// where the rest is -0 (a value -0's): the other order made every block with a -0 fail.
inline void split_add(double16* high, double16* low, double16 x, long8* lost) {
    const double16 next_high = *high + x;
    const double16 rest = x - (next_high - *high); // as split_off() on GPUs, 16 lanes wide
    const double16 next_low = *low + rest;
    const long16 low_lost = as_long16(EXACT_SPLIT_LOST((next_low - *low) - rest));
    *lost |= low_lost.lo | low_lost.hi;
    *high = next_high;
    *low = next_low;
}

/// The magnitudes of x's values as their bits, the sign cleared, which order them as the
/// magnitudes do: a NaN's and an infinity's are above every finite value's, so a block with
/// one fails the bound. Their largest is taken as integers, not as fmax() of fabs(), which
/// spends instructions on NaNs: on the 16-core PoCL the median of four rounds took 3 to 13%
/// less time so at every length from 2^20 to 2^26 (docs/exact-sums.md).
inline long16 magnitude_bits(double16 x) {
    return as_long16(x) & LONG_MAX;
}

/// The bits of the block's largest magnitude (magnitude_bits()), a step of sixteen values at a
/// time: a NaN's or an infinity's where the block holds one. As fmax() of fabs() four values at
/// a time, with a test for NaNs and infinities, this pass cost a block of zeros, which starts
/// no chain, more than a chain's splitter sums: on the 16-core PoCL, 2^20 zeros took 1.65 times
/// the plain sum's time so and 1.12 this way, 2^20 normal doubles 1.26 and 1.13
/// (docs/exact-sums.md).
inline long block_largest(global const VALUE* values, ulong i) {
    long8 largest = 0;
    global const VALUE* block = values + 4 * i;
    for (int k = 0; k < BLOCK_STEPS; ++k) {
        const long16 magnitudes = magnitude_bits(vload16(k, block));
        largest = max(largest, max(magnitudes.lo, magnitudes.hi));
    }
    const long4 largest4 = max(largest.lo, largest.hi);
    const long2 largest2 = max(largest4.lo, largest4.hi);
    return max(largest2.x, largest2.y);
}

/// Adds the block from vector i on to the chain's sums; whether they hold it exactly, every
/// value below the chain's bound (where not, the sums are spoilt: the caller keeps a copy).
inline bool split_block(global const VALUE* values, ulong i, SplitChain* chain) {
    long8 largest = 0;
    long8 lost = 0;
    global const VALUE* block = values + 4 * i;
    for (int k = 0; k < BLOCK_STEPS; ++k) {
        prefetch_ahead(block + BLOCK_STEP * k, BLOCK_STEP * sizeof(VALUE));
        const double16 step = vload16(k, block);
        const long16 magnitudes = magnitude_bits(step);
        largest = max(largest, max(magnitudes.lo, magnitudes.hi));
        split_add(&chain->high, &chain->low, step, &lost);
    }
    return !any(lost != 0) && EXACT_BELOW_BOUND(largest, as_long(chain->bound));
}

/// The sixteen lanes of a chain's high or low sums less their splitters, added eight by eight:
/// exactly, since each lane's sum lies on its sum's grid within 2^50 of its steps (a high
/// lane's at most 2^8 values of at most 2^E, rounded to the grid 2^(E - 42); a low lane's at
/// most 2^8 rests of 2^(E - 43), on the grid 2^(E - 85)), and eight of them within the 2^53
/// that a double holds; sixteen would not be. A chain then costs one deposit4() where its lanes
/// took eight: on the 16-core PoCL, 2^20 and 2^21 doubles took 0.93 to 0.99 times as long so,
/// round by round (docs/exact-sums.md). Half of the lanes go through EXACT_BLOCK_SUM, the pairs
/// through EXACT_LANE_PAIRS (mutation hooks).
inline double2 lane_pairs(double16 x) {
    const double8 eight = x.lo + x.hi;
    const double4 four = eight.lo + eight.hi;
    return EXACT_LANE_PAIRS(four.lo + EXACT_BLOCK_SUM(four.hi));
}

/// Deposits the sums of the chain's blocks, if any, and empties it.
inline void deposit_chain(SplitChain* chain, doubleN* expansion, local long* digits) {
    if (chain->blocks == 0)
        return;
    const SplitChain splitters = split_chain(chain->bound);
    deposit4(
        (double4)(lane_pairs(chain->high - splitters.high), lane_pairs(chain->low - splitters.low)),
        expansion, digits);
    chain->blocks = 0;
}

/// Adds the block from vector i on to the chain, where it holds it; else deposits the chain
/// and starts another with the block, bounded by its largest magnitude. False, and nothing
/// added, where the block has a NaN or an infinity, its magnitudes are past the splitters'
/// range, or its values fail a chain of their own.
inline bool chain_block(global const VALUE* values, ulong i, SplitChain* chain, doubleN* expansion,
                        local long* digits) {
    if (chain->blocks != 0 && chain->blocks < CHAIN_BLOCKS) {
        SplitChain longer = *chain;
        if (split_block(values, i, &longer)) {
            *chain = longer;
            ++chain->blocks;
            return true;
        }
    }
    deposit_chain(chain, expansion, digits);
    const long largest = block_largest(values, i);
    if (largest == 0)
        return true; // zeros: nothing to add
    // 0 for a NaN or an infinity, whose biased exponent is 2047
    const double bound = chain_bound(largest >> 52, BOUND_HEADROOM);
    if (bound == 0)
        return false;
    *chain = split_chain(bound);
    if (!split_block(values, i, chain))
        return false;
    chain->blocks = 1;
    return true;
}

/// Adds the whole blocks of [i, end) to a work-item's expansions, in chains where their
/// splitter sums hold them, else value by value; returns where they end.
inline ulong add_blocks(global const VALUE* values, ulong i, ulong end, doubleN* expansion,
                        local long* digits) {
    SplitChain chain = split_chain(1.0); // no blocks yet: the first one sets the bound
    for (; EXACT_IN_RUN(i + BLOCK_VECTORS - 1, end); i += BLOCK_VECTORS)
        if (!chain_block(values, i, &chain, expansion, digits))
            for (int k = 0; k < BLOCK_VECTORS; ++k)
                add_values(LOAD4(i + k, values), expansion, digits);
    deposit_chain(&chain, expansion, digits);
    return i;
}
#endif
#endif

#if defined(VALUE_IS_FLOAT) && !defined(CONTIGUOUS)
#define CHAINS
#endif

#ifdef CHAINS
// On GPUs, float values (float16 and bfloat16 loaded as floats) go in chains: a work-item adds
// its loads to a plain double sum, a lane of doubleN for each lane of its expansions, for as
// long as that sum is exact, and deposits it only then. deposit()'s TwoSum costs some ten
// double operations a value, which held the sum back wherever memory could go faster: on an
// H100, 2^23 floats (which the L2 cache holds) took 20.1 us so against the plain sum's 13.3,
// and 15.3 in chains; 2^28 float16 values 319 us against 204 (the plain sum 180;
// docs/exact-sums.md). The rule is the CPUs' blocks' (sums_exactly()), checked before each
// turn of loads joins. A turn that would break it deposits the chain and starts another; one
// that breaks it alone goes value by value.
#define CHAIN_VALUES 2 // a lane's values in each load: float values' expansions are double2

typedef struct {
    doubleN sum;
    uint largest, smallest_less_one; // magnitudes as float bits (sums_exactly())
    uint values;                     // a lane's
} Chain;

/// Notes the magnitudes of x's values: the largest, and the smallest nonzero less one.
inline void note_magnitudes4(float4 x, uint4* largest, uint4* smallest_less_one) {
    const uint4 magnitude = as_uint4(x) & 0x7fffffffu;
    *largest = max(*largest, magnitude);
    *smallest_less_one = min(*smallest_less_one, magnitude - 1);
}

/// Whether the chain's sum stays exact with `loads` more loads whose magnitudes are noted in
/// largest and smallest_less_one; if so, counts them in.
inline bool extends(Chain* chain, uint4 largest, uint4 smallest_less_one, uint loads) {
    const uint2 largest2 = max(largest.lo, largest.hi);
    const uint2 smallest2 = min(smallest_less_one.lo, smallest_less_one.hi);
    const uint most = max(chain->largest, max(largest2.x, largest2.y));
    const uint least_less_one = min(chain->smallest_less_one, min(smallest2.x, smallest2.y));
    const uint values = chain->values + loads * CHAIN_VALUES;
    const bool exact = sums_exactly(most, least_less_one, values);
    if (exact) {
        chain->largest = most;
        chain->smallest_less_one = least_less_one;
        chain->values = values;
    }
    return exact;
}

/// The chain's sum with x's four values added, as doubles (exactly: extends() said so).
inline doubleN add_to_chain(doubleN sum, float4 x) {
    const double4 wide = convert_double4(x);
    return sum + (wide.lo + wide.hi);
}

/// Deposits the chain's sum, and empties the chain.
inline void flush(Chain* chain, doubleN* expansion, local long* digits) {
    if (chain->values != 0)
        deposit(chain->sum, expansion, digits, MAY_OVERFLOW);
    const Chain empty = {0, 0, UINT_MAX, 0};
    *chain = empty;
}

/// Whether the chain takes a turn of `loads` loads whose magnitudes are noted in largest and
/// smallest_less_one: as it is, or deposited first and started again with them alone.
inline bool takes(Chain* chain, uint4 largest, uint4 smallest_less_one, uint loads,
                  doubleN* expansion, local long* digits) {
    if (extends(chain, largest, smallest_less_one, loads))
        return true;
    flush(chain, expansion, digits);
    return extends(chain, largest, smallest_less_one, loads);
}
#endif

#if !defined(VALUE_IS_FLOAT) && !defined(CONTIGUOUS)
// On GPUs, a turn of four double loads skips TwoSum's overflow guard where it cannot fire: the
// guard's tests and selects cost a double's deposit about as many operations as the TwoSum
// itself. On the H100, 2^24 normal values took 58 us so against 64, values spread over 80
// binades 66 against 85 (the plain sum 50; docs/exact-sums.md). The guard cannot fire where
// every value of the turn is below 2^960 in magnitude (EXACT_TURN_BOUND): the entries are
// finite (the guard keeps them so), round to nearest takes a sum past the largest double only
// from half its ulp, 2^970, beyond it, and TwoSum's error is no larger than the smaller addend,
// so the same holds all down the expansion. The test is integer work on the doubles' high
// words, which runs beside the double operations.
#define UNGUARDED_TURNS

/// The high words of x's magnitudes, which order them as the magnitudes do (NaN above all).
inline uint4 high_words(double4 x) {
    return convert_uint4(as_ulong4(x) >> 32) & 0x7fffffffu;
}

/// Whether every value of a, b, c and d is below 2^960 in magnitude: none a NaN or infinite.
inline bool below_overflow(double4 a, double4 b, double4 c, double4 d) {
    const uint4 largest = max(max(high_words(a), high_words(b)), max(high_words(c), high_words(d)));
    return all(largest < EXACT_TURN_BOUND);
}

// On GPUs, doubles go in chains of turns: a work-item adds each turn of four loads to its
// chain's splitter sums (above), a high and a low sum of four lanes, for as long as the turns'
// magnitudes keep them exact, and deposits only the chain's sums. Where TwoSum spends six
// operations a value, or twelve where the value has all 53 bits, a splitter sum spends four:
// on the H200, 2^26 normal values took 131.4 us so against 146.2, 2^28 481.5 against 522.4
// (the plain sum 124.1 and 470.0); small random integers, about as long as by TwoSum
// (docs/exact-sums.md). Unlike the CPUs' blocks, a turn is tested before it is added, so that
// no copy of the sums waits in registers for the test: each value is below the bound and,
// where not zero, at least 2^(E - EXACT_LOW_REACH) in magnitude, whose ulp is the low sum's
// grid 2^(E - 85) or coarser, so that the low sum adds its rest exactly. A turn that fails
// deposits the chain and starts another, bounded TURN_HEADROOM binades above its own largest
// magnitude; one that fails that too takes TwoSum, and so do the TURN_IDLE turns after it,
// which would most likely fail as well (data spread over more binades than a chain holds) and
// cost their tests. The kernel then takes 102 registers, within the 128 that two work-groups
// of 256 an SM leave. A turn's sixteen values vary in their largest more than a CPU's block of
// 256: where one value in ten was nonzero, chains started at bounds that the next turns passed,
// and 2^24 such doubles took 1.33 times the plain sum on the H200 with the blocks' 2 binades,
// 1.20 with 4 (normal values 1.13 with either; docs/exact-sums.md).
#define SPLIT_TURNS
#define TURNS_A_CHAIN (SPLIT_VALUES_A_LANE / 4) // a turn adds four values a lane
#define TURN_IDLE 8
#define TURN_HEADROOM 4

/// A chain of turns: a high and a low sum, from their splitters on, for values below `bound`
/// and (but zeros) at least 2^-EXACT_LOW_REACH times it, those two as turn_magnitudes() of
/// them (the least less one); and how many turns it holds, or for how many more not to try.
typedef struct {
    double4 high, low;
    double bound;
    uint below, least_less_one;
    uint turns, idle;
} TurnChain;

/// Adds x to a splitter's sum `high`; returns what high's grid could not hold, exactly.
inline double4 split_off(double4* high, double4 x) {
    const double4 next_high = *high + x;
    const double4 rest = x - (next_high - *high);
    *high = next_high;
    return rest;
}

/// The magnitudes of x's values as the high words of their bits, the sign cleared, with the
/// last bit set where the low word is not zero: ordered as the magnitudes are against every
/// power of two from 2^-1022 up (whose high words are even and low words zero), and zero only
/// for a zero (not for the least subnormals). Integer work on words that runs beside the
/// double operations.
inline uint4 turn_magnitudes(double4 x) {
    return high_words(x) | (as_uint4(convert_uint4(as_ulong4(x)) != 0u) & 1u);
}

/// Deposits the chain's sums, less their splitters, if it holds any turns, and empties it.
inline void deposit_turns(TurnChain* chain, doubleN* expansion, local long* digits) {
    if (chain->turns == 0)
        return;
    deposit4(chain->high - HIGH_SPLITTER * chain->bound, expansion, digits);
    deposit4(chain->low - LOW_SPLITTER * chain->bound, expansion, digits);
    chain->turns = 0;
}

/// Adds the turn a, b, c, d to the chain where its magnitudes keep the sums exact; else
/// deposits the chain and starts another with the turn. False, and nothing added, where the
/// turn fails a chain of its own, or follows such a turn by no more than TURN_IDLE turns.
inline bool takes_turn(TurnChain* chain, double4 a, double4 b, double4 c, double4 d,
                       doubleN* expansion, local long* digits) {
    if (chain->idle != 0) {
        --chain->idle;
        return false;
    }
    const uint4 ma = turn_magnitudes(a), mb = turn_magnitudes(b), mc = turn_magnitudes(c),
                md = turn_magnitudes(d);
    const uint4 largest = max(max(ma, mb), max(mc, md));
    const uint4 least_less_one = min(min(ma - 1, mb - 1), min(mc - 1, md - 1)); // zeros wrap
    const uint2 largest2 = max(largest.lo, largest.hi);
    const uint2 least2 = min(least_less_one.lo, least_less_one.hi);
    const uint most = max(largest2.x, largest2.y), least = min(least2.x, least2.y);
    if (chain->turns == 0 || chain->turns == TURNS_A_CHAIN ||
        !EXACT_BELOW_BOUND(largest, chain->below) || least < chain->least_less_one) {
        deposit_turns(chain, expansion, digits);
        if (most == 0)
            return true; // zeros: nothing to add
        // 0 for a NaN or an infinity, whose biased exponent is 2047
        chain->bound = chain_bound(most >> 20, TURN_HEADROOM);
        chain->below = as_uint2(chain->bound).y;
        chain->least_less_one = chain->below - (EXACT_LOW_REACH << 20) - 1;
        if (chain->bound == 0 || least < chain->least_less_one) {
            chain->idle = TURN_IDLE;
            return false;
        }
        chain->high = HIGH_SPLITTER * chain->bound;
        chain->low = LOW_SPLITTER * chain->bound;
    }
    chain->low += split_off(&chain->high, a);
    chain->low += split_off(&chain->high, b);
    chain->low += split_off(&chain->high, c);
    chain->low += split_off(&chain->high, d);
    ++chain->turns;
    return true;
}
#endif

/// Adds the vectors of `values` that `stride` names to a work-item's expansions, with four
/// loads in flight before any is added: the adds wait on memory less. On GPUs, float values go
/// in chains of plain double sums and doubles in chains of splitter sums, each turn of loads
/// at once.
inline void add_vectors(global const VALUE* values, Stride stride, doubleN* expansion,
                        local long* digits) {
    const ulong end = stride.end;
    const ulong step = stride.step;
    ulong i = stride.start;
#ifdef CONTIGUOUS
    i = add_blocks(values, i, end, expansion, digits); // step is 1 on CPUs (stride_of())
#endif
#ifdef CHAINS
    Chain chain = {0, 0, UINT_MAX, 0};
#endif
#ifdef SPLIT_TURNS
    TurnChain turns = {0};
#endif
    for (; EXACT_IN_RUN(i + 3 * step, end); i += 4 * step) {
        const LOADED4 a = LOAD4(i, values);
        const LOADED4 b = LOAD4(i + step, values);
        const LOADED4 c = LOAD4(i + 2 * step, values);
        const LOADED4 d = LOAD4(i + 3 * step, values);
#ifdef CHAINS
        uint4 largest = 0, smallest_less_one = UINT_MAX;
        note_magnitudes4(a, &largest, &smallest_less_one);
        note_magnitudes4(b, &largest, &smallest_less_one);
        note_magnitudes4(c, &largest, &smallest_less_one);
        note_magnitudes4(d, &largest, &smallest_less_one);
        if (takes(&chain, largest, smallest_less_one, 4, expansion, digits)) {
            chain.sum =
                add_to_chain(add_to_chain(add_to_chain(add_to_chain(chain.sum, a), b), c), d);
            continue;
        }
#endif
#ifdef SPLIT_TURNS
        if (takes_turn(&turns, a, b, c, d, expansion, digits))
            continue;
#endif
#ifdef UNGUARDED_TURNS
        if (below_overflow(a, b, c, d)) {
            deposit4_checked(a, expansion, digits, false);
            deposit4_checked(b, expansion, digits, false);
            deposit4_checked(c, expansion, digits, false);
            deposit4_checked(d, expansion, digits, false);
            continue;
        }
#endif
        add_values(a, expansion, digits);
        add_values(b, expansion, digits);
        add_values(c, expansion, digits);
        add_values(d, expansion, digits);
    }
    for (; EXACT_IN_RUN(i + step, end); i += 2 * step) {
        const LOADED4 a = LOAD4(i, values);
        const LOADED4 b = LOAD4(i + step, values);
#ifdef CHAINS
        uint4 largest = 0, smallest_less_one = UINT_MAX;
        note_magnitudes4(a, &largest, &smallest_less_one);
        note_magnitudes4(b, &largest, &smallest_less_one);
        if (takes(&chain, largest, smallest_less_one, 2, expansion, digits)) {
            chain.sum = add_to_chain(add_to_chain(chain.sum, a), b);
            continue;
        }
#endif
        add_values(a, expansion, digits);
        add_values(b, expansion, digits);
    }
#ifdef CHAINS
    flush(&chain, expansion, digits);
#endif
#ifdef SPLIT_TURNS
    deposit_turns(&turns, expansion, digits);
#endif
    for (; EXACT_IN_RUN(i, end); i += step)
        add_values(LOAD4(i, values), expansion, digits);
}

/// Adds the last `length` % 4 values of `values`, which no vector holds.
void add_tail(global const VALUE* values, ulong length, doubleN* expansion, local long* digits) {
    for (ulong tail = length / 4 * 4; tail < length; ++tail)
        add_values((LOADED4)(LOAD(tail, values), 0, 0, 0), expansion, digits);
}

/// The exact sum of the `length` values of `input` from `first` on, added into the row `sum`
/// (one launch: each work-group adds its share's row with atomics, so no second pass merges
/// rows). `sum` must hold zeros, or a sum to add to, before the launch; work-group 0 zeroes
/// `next_sum`, which no other launch reads or writes meanwhile, for the host's next sum, so
/// that no command is spent on clearing a row. Work-items read four values at a time, across
/// the whole launch (stride_of()); the first work-item adds the last length % 4 values.
kernel void exact_partials(global const VALUE* input, ulong first, ulong length, global long* sum,
                           global long* next_sum) {
    local long digits[ROW_WIDTH];
    local doubleN slots[FOLD_SLOTS * EXPANSION];
    local uint deep; // whether fold() hands over every entry
    clear(digits, &deep);
    if (get_group_id(0) == 0)
        for (size_t entry = get_local_id(0); entry < ROW_WIDTH; entry += get_local_size(0))
            next_sum[entry] = 0;
    doubleN expansion[EXPANSION] = {0};
    global const VALUE* values = input + first;
    add_vectors(values, stride_of(0, length / 4, get_global_id(0), get_global_size(0)), expansion,
                digits);
    if (get_global_id(0) == 0)
        add_tail(values, length, expansion, digits);
    fold(expansion, digits, slots, &deep);
    spill_folded(expansion, digits, slots);
    add_row_into(digits, sum);
}

// The sum's type, which exact_round() writes: float for float, float16 and bfloat16 input.
#ifdef VALUE_IS_FLOAT
#define RESULT float
#define PRECISION 24
#define LARGEST MAXFLOAT
#else
#define RESULT double
#define PRECISION 53
#define LARGEST DBL_MAX
#endif
#define DIGITS (LIMBS + 1) // of the magnitude: the top limb's 64 bits are two

/// Bits [from, from + 64) of the magnitude's digits (zero past the last).
ulong bits_from(const uint* digits, int from) {
    const int digit = from / DIGIT_BITS;
    const int shift = from % DIGIT_BITS;
    const uint next = digit + 1 < DIGITS ? digits[digit + 1] : 0;
    const uint after = digit + 2 < DIGITS ? digits[digit + 2] : 0;
    const ulong low = digits[digit] | (ulong)next << DIGIT_BITS;
    return shift == 0 ? low : low >> shift | (ulong)after << (2 * DIGIT_BITS - shift);
}

/// Whether any bit of the magnitude below `position` is set.
bool any_below(const uint* digits, int position) {
    for (int digit = 0; digit < position / DIGIT_BITS; ++digit)
        if (digits[digit] != 0)
            return true;
    const uint below = (1U << (position % DIGIT_BITS)) - 1;
    return (digits[position / DIGIT_BITS] & below) != 0;
}

/// Normalises the limbs of `row` in place, as ExactAccumulator::normalise() does on the host:
/// every limb but the top one in [0, 2^32), the top one keeping the sign. The work-groups
/// passed each limb's excess up one limb only.
void normalise(long* row) {
    long carry = 0;
    for (int limb = 0; limb < LIMBS - 1; ++limb) {
        const long sum = row[limb] + carry;
        row[limb] = sum & (long)DIGIT_MASK;
        carry = EXACT_CARRY(sum);
    }
    row[LIMBS - 1] += carry;
}

/// The finite sum that normalised limbs hold, rounded once to RESULT, to nearest even, as
/// ExactAccumulator::rounded() does on the host: the integer's magnitude, its top PRECISION
/// bits, rounded from the next bit and the sticky bits below it.
RESULT round_finite(const long* row) {
    const bool negative = row[LIMBS - 1] < 0;
    uint digits[DIGITS];
    ulong carry = 1; // two's complement: the magnitude of a negative integer is ~x + 1
    for (int digit = 0; digit < DIGITS; ++digit) {
        const uint bits = digit < LIMBS ? (uint)row[digit] : (uint)(row[LIMBS - 1] >> DIGIT_BITS);
        const ulong sum = (ulong)~bits + carry;
        digits[digit] = negative ? (uint)sum : bits;
        carry = sum >> DIGIT_BITS;
    }
    int highest = -1;
    for (int digit = DIGITS - 1; digit >= 0 && highest < 0; --digit)
        if (digits[digit] != 0)
            highest = digit * DIGIT_BITS + 31 - clz(digits[digit]);
    if (highest < 0)
        return 0; // an exact zero is +0
    const int shift = max(0, highest - (PRECISION - 1));
    ulong significand = bits_from(digits, shift) & ((1UL << min(highest + 1, PRECISION)) - 1);
    if (shift > 0 && (bits_from(digits, shift - 1) & 1) != 0 &&
        (any_below(digits, shift - 1) || (significand & 1) != 0))
        ++significand; // 2^PRECISION at most, which a double holds exactly
    // Exact in double, or infinity past its largest value; past the sum's type's largest
    // value (the significand rounded already), infinity as IEEE rounding gives.
    const double magnitude = ldexp((double)significand, LOWEST_BIT + shift);
    const RESULT rounded = magnitude > (double)LARGEST ? INFINITY : (RESULT)magnitude;
    return negative ? -rounded : rounded;
}

/// The sum that `row` (a private copy, normalised in place) holds, rounded once: NaN for a NaN
/// or for both infinities, else an infinity for one, else the finite sum rounded.
RESULT rounded(long* row) {
    const long positive_infinities = row[POSITIVE_INFINITY_COUNT];
    const long negative_infinities = row[NEGATIVE_INFINITY_COUNT];
    if (row[NAN_COUNT] > 0 || (positive_infinities > 0 && negative_infinities > 0))
        return NAN;
    if (positive_infinities > 0 || negative_infinities > 0)
        return positive_infinities > 0 ? INFINITY : -INFINITY;
    normalise(row);
    return round_finite(row);
}

/// The sum that a row in local memory holds (every spill into it done), rounded once; the
/// work-group's row dropped instead by the drop-row mutant (EXACT_ADDS_ROW).
RESULT rounded_local(local const long* digits) {
    const bool kept = EXACT_ADDS_ROW(get_group_id(0));
    long row[ROW_WIDTH];
    for (int entry = 0; entry < ROW_WIDTH; ++entry)
        row[entry] = kept ? digits[entry] : 0;
    return rounded(row);
}

/// The last step of enqueued exact sums: each of `count` rows (side by side in `rows`) rounded
/// by a work-item of its own into result[offset + row].
kernel void exact_round(global const long* rows, ulong count, global RESULT* result, ulong offset) {
    const size_t run = get_global_id(0);
    if (run >= count)
        return;
    long row[ROW_WIDTH];
    for (int entry = 0; entry < ROW_WIDTH; ++entry)
        row[entry] = rows[run * ROW_WIDTH + entry];
    result[offset + run] = rounded(row);
}

/// The exact sums of many runs of `run_length` values, side by side in `input` from value
/// `first` on (an axis reduction's results, their values gathered), each rounded once into
/// result[offset + run]: a segmented exact sum in one launch. Each run is cut into `chunks`
/// pieces, a work-group each, so that few long runs still fill the device. A run of one chunk
/// is summed by its work-group alone, which rounds its row from local memory; the chunks of
/// a longer run add their rows into the run's row of `rows` (zeros before the launch) with
/// atomics, as exact_partials() does, and exact_round() rounds them after. With `keep_rows`,
/// every run's row goes to `rows`, none rounded: rows that other devices' rows add to.
kernel void exact_runs(global const VALUE* input, ulong first, ulong run_length, uint chunks,
                       uint keep_rows, global long* rows, global RESULT* result, ulong offset) {
    local long digits[ROW_WIDTH];
    local doubleN slots[FOLD_SLOTS * EXPANSION];
    local uint deep; // whether fold() hands over every entry
    clear(digits, &deep);
    const ulong run = get_group_id(0) / chunks;
    const ulong chunk = get_group_id(0) % chunks;
    global const VALUE* values = input + first + run * run_length;
    const ulong vectors = run_length / 4;
    const ulong per_chunk = (vectors + chunks - 1) / chunks;
    const ulong chunk_start = min(chunk * per_chunk, vectors);
    doubleN expansion[EXPANSION] = {0};
    add_vectors(values,
                stride_of(chunk_start, min(chunk_start + per_chunk, vectors), get_local_id(0),
                          get_local_size(0)),
                expansion, digits);
    if (chunk == 0 && get_local_id(0) == 0)
        add_tail(values, run_length, expansion, digits);
    fold(expansion, digits, slots, &deep);
    spill_folded(expansion, digits, slots);
    if (chunks > 1 || keep_rows) {
        add_row_into(digits, rows + run * ROW_WIDTH);
        return;
    }
    barrier(CLK_LOCAL_MEM_FENCE); // every spill is in the row
    if (get_local_id(0) == 0)
        result[offset + run] = rounded_local(digits);
}

/// The exact sums of many short runs (as exact_runs() takes them), a work-item each: it adds
/// its run's values to its expansions, spills them into its own row in local memory (`rows`,
/// ROW_WIDTH entries a work-item; local, so that spill() serves it as it serves a work-group's
/// row, though no other work-item touches it) and rounds it. No fold, no barrier: what a
/// work-group's run costs beyond its reads is paid per work-item, and a short run is mostly
/// that cost. Neighbouring work-items read runs apart, each its own run's vectors in turn.
kernel void exact_short_runs(global const VALUE* input, ulong first, ulong run_length, ulong count,
                             local long* rows, global RESULT* result, ulong offset) {
    const ulong run = get_global_id(0);
    if (run >= count)
        return;
    local long* digits = rows + get_local_id(0) * ROW_WIDTH;
    for (int entry = 0; entry < ROW_WIDTH; ++entry)
        digits[entry] = 0;
    global const VALUE* values = input + first + run * run_length;
    doubleN expansion[EXPANSION] = {0};
    add_vectors(values, (Stride){0, run_length / 4, 1}, expansion, digits);
    add_tail(values, run_length, expansion, digits);
    for (int k = 0; k < EXPANSION; ++k)
        spill_lanes(digits, expansion[k]);
    result[offset + run] = rounded_local(digits);
}
