#!/usr/bin/env python3
"""--exact against an independent oracle: Python's exact integer and rational arithmetic.

For each adversarial input of float, double, float16 and bfloat16 values (huge
cancellation, magnitudes from subnormals to the largest value, ties to even, all-equal
values, alternating signs, overflow, NaN and infinities), writes the values as a raw file,
computes their exact sum in Python's integers (as a count of 2^-1074), rounds it with
fractions.Fraction once to nearest even in the sum's type (float for the 16-bit types, as
their plain sums), and runs `clreduce --exact --input file -q` in every layout: work-group
sizes, buffers (--max-buffer), host-input chunks (--chunk), and a split across two devices
where POCL_DEVICES="pthread pthread" gives them.
Every run must print the oracle's bits. Along an axis (--axis --exact), the inputs up to
50001 values are the rows of one .npy array, padded with zeros: each row's sum, and each
column's of the same bytes read as a Fortran-order array, must be the oracle's bits in the
--output file; each input of 20000 values or more, as the one row of an array, is summed in
chunks and must print them. With --mutants DIR, each folder in DIR holds a
broken exact_sum.cl that must make clreduce exit 1 on each float and double input with
cancellation (or on the one that its step alone sees: MUTANT_INPUTS).

With --strided DIR, whose exact_sum.cl reads as on GPUs, two more layouts run it on the CPU.

Usage: check_exact.py CLREDUCE WORK_DIR [--mutants DIR] [--strided DIR]
"""

import math
import os
import random
import re
import struct
import subprocess
import sys
from fractions import Fraction

FORMATS = {  # type: (struct code, precision, lowest exponent of the last bit, max exponent)
    "float": ("f", 24, -149, 128),
    "double": ("d", 53, -1074, 1024),
    "float16": ("e", 11, -24, 16),
    "bfloat16": (None, 8, -133, 128),  # a float's upper 16 bits
}
UNIT_EXPONENT = 1074  # every value is a multiple of 2^-1074
# The type each type's exact sum is rounded to: float for the 16-bit types, as their sums'.
RESULT = {"float": "float", "double": "double", "float16": "float", "bfloat16": "float"}


def round_to(value, type_name):
    """The exact rational `value` rounded once to nearest even in the type that a sum of
    `type_name` values has."""
    _, precision, lowest, max_exponent = FORMATS[RESULT[type_name]]
    if value == 0:
        return 0.0
    magnitude = abs(value)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1
    unit = Fraction(2) ** max(exponent - precision + 1, lowest)
    rounded = round(magnitude / unit) * unit  # round() of a Fraction: ties to even
    result = math.inf if rounded >= Fraction(2) ** max_exponent else float(rounded)
    return -result if value < 0 else result


def exact_sum(values, type_name):
    if any(math.isnan(x) for x in values) or (math.inf in values and -math.inf in values):
        return math.nan
    if math.inf in values or -math.inf in values:
        return math.inf if math.inf in values else -math.inf
    # Every finite value of these types is a whole number of 2^-1074 (the least double):
    # Python's integers add those counts exactly, many times faster than Fractions do.
    units = 0
    for x in values:
        numerator, denominator = x.as_integer_ratio()  # denominator: a power of 2
        units += numerator << (UNIT_EXPONENT + 1 - denominator.bit_length())
    return round_to(Fraction(units, 1 << UNIT_EXPONENT), type_name)


def bfloat16_bits(x):
    """The bits of x (a float) rounded to bfloat16, to nearest even."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    return bits >> 16 if math.isnan(x) else (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def on_grid(x, type_name):
    """x as a value of the type (round-trip through its bytes)."""
    if type_name == "bfloat16":
        return struct.unpack("<f", struct.pack("<I", bfloat16_bits(on_grid(x, "float")) << 16))[0]
    code = FORMATS[type_name][0]
    return struct.unpack("<" + code, struct.pack("<" + code, x))[0]


def to_bytes(values, type_name):
    if type_name == "bfloat16":
        return struct.pack("<%dH" % len(values), *(bfloat16_bits(x) for x in values))
    return struct.pack("<%d%s" % (len(values), FORMATS[type_name][0]), *values)


def wide_range(type_name, count, rng):
    """Random signs and exponents from the smallest subnormal to 2^-12 of the largest value,
    so that no sum of them overflows."""
    _, _, lowest, max_exponent = FORMATS[type_name]
    return [on_grid(rng.choice((-1, 1)) * math.ldexp(rng.random(),
                                                   rng.randint(lowest, max_exponent - 12)),
                    type_name) for _ in range(count)]


def cases(type_name):
    """(name, values) of the adversarial inputs for `type_name`."""
    rng = random.Random(22)
    code, precision, lowest, max_exponent = FORMATS[type_name]
    largest = on_grid(math.ldexp(1 - 2.0**-precision, max_exponent), type_name)
    tiny = math.ldexp(1, lowest)
    half_ulp_of_one = math.ldexp(1, -FORMATS[RESULT[type_name]][1])  # of the rounded sum
    big = {"float": 1e8, "double": 1e17, "float16": 4096.0, "bfloat16": 1e8}[type_name]
    big = on_grid(big, type_name)  # 1e8 is not a bfloat16
    yield "cancellation", [big, 1.0, -big] * 100000
    yield "negative-cancellation", [-big, -1.0, big] * 1000
    yield "wide-range", wide_range(type_name, 20011, rng)
    noise_exponent = min(40, max_exponent - 5)  # noise that cancels, as large as the type holds
    for odd in (1, 3, 5, 7):  # 1 + odd half-ulps: a tie, rounding down, up, down, up to even
        noise = [v for i in range(500) for v in (math.ldexp(1 + i % 8, noise_exponent),
                                                 -math.ldexp(1 + i % 8, noise_exponent))]
        yield "tie-%d" % odd, noise[:500] + [1.0] + [half_ulp_of_one] * odd + noise[500:]
    yield "all-equal", [on_grid(0.1, type_name)] * 100003
    yield "alternating", [on_grid((-1) ** i * (i + 0.1) / 3, type_name) for i in range(50001)]
    yield "subnormals", [tiny] * 1001 + [-tiny] * 3
    yield "overflow-up", [largest] * 3
    yield "overflow-down", [-largest, -largest]
    yield "no-overflow", [largest, largest, -largest]
    yield "tie-at-the-top", [largest, math.ldexp(1, max_exponent - precision - 1)]
    yield "below-the-top", [largest, math.ldexp(1, max_exponent - precision - 2)]
    yield "zero", [1.0, -1.0, 0.5, -0.5] * 7
    yield "nan", [1.0, math.nan, 2.0] * 5
    yield "both-infinities", [math.inf, 1.0, -math.inf]
    yield "infinity", [1.0, math.inf, largest, largest]
    yield "negative-infinity", [largest, -math.inf, largest]
    # The same in runs long enough for blocks and chains (which must not sum them as numbers)
    yield "nan-in-runs", [1.0] * 2500 + [math.nan] + [1.0] * 2500
    yield "infinities-in-runs", [1.0] * 1000 + [math.inf] + [1.0] * 3000 + [-math.inf] + [1.0] * 999
    yield "infinity-in-runs", [1.0] * 4000 + [-math.inf] + [1.0] * 1000
    # Sums that overflow where fold() adds the work-items' expansions, though the whole does
    # not; the ones among them leave errors in later entries, so that the fold hands all over
    halves = [math.ldexp(0.75, max_exponent), -math.ldexp(0.75, max_exponent)] * 5000
    values = halves + [1.0] * 1000
    rng.shuffle(values)
    yield "overflow-in-fold", values


def fold_case(clreduce, type_name):
    """Values that each work-item adds exactly (64 equal values, as a CPU reads them: a run
    each) but whose work-items' sums lie 60 binades apart from one quarter of a work-group of
    64 to the next: only fold() meets rounding errors. It then hands each expansion's first
    entry over, and the entries its deposits leave behind must spill. The second half negates
    the first, its quarters turned by one, so that the sum is zero and the entries that the
    halves leave behind differ: any lost entry shows. The work-groups are the ones that
    `clreduce -v` launches with -w 64."""
    if type_name not in ("float", "double"):
        return []  # the 16-bit types' values span too few binades
    launch = run(clreduce, ["--exact", "-t", "cpu", "-w", "64", "-l", str(1 << 20), "-v",
                            "--data-type", type_name])
    groups, size = map(int, re.search(r"work-groups (\d+) x (\d+)", launch.stdout).groups())
    def half(turn):  # quarter q of each work-group holds 2^(-100 + 60 (q + turn) % 4)
        return [math.ldexp(1, -100 + 60 * ((item % size * 4 // size + turn) % 4))
                for item in range(groups * size // 2) for _ in range(64)]
    return [("fold-quarters", half(0) + [-x for x in half(1)])]


def fold_spill_case(type_name):
    """Values with all their bits in five classes of magnitude far apart, shuffled, then the same
    negated in another order: every work-item's expansions (three doubles) hold more than they
    can, and so do the ones that fold() adds up, which must spill what is left over.
    The sum is zero, so any value lost shows."""
    if type_name not in ("float", "double"):
        return []  # the 16-bit types' values span too few binades
    rng = random.Random(23)
    _, precision, _, _ = FORMATS[type_name]
    step = {"float": 50, "double": 400}[type_name]  # binades between the classes
    top_bit = 1 << (precision - 1)
    values = [rng.choice((-1, 1)) * math.ldexp(rng.getrandbits(precision - 1) | top_bit,
                                               step * rng.randint(-2, 2) - precision)
              for _ in range(1 << 15)]
    negated = [-x for x in values]
    rng.shuffle(negated)
    return [("fold-spills", values + negated)]


def block_edge_case(type_name):
    """Blocks of 256 values (a CPU work-item's, with -w 1: sum_block() in exact_sum.cl) one
    step past what a block's sums hold exactly, which must go value by value. Floats: the
    exponents span 26 binades, one more than plain double additions sum exactly; a block
    starts with its smallest value, whose last bit the ninth value of its lane (the lane's
    sum then past 2^4) would round away. Doubles: the smallest value's last bit lies 100
    binades below the largest, past the second sum's grid. Each block is followed by one
    that cancels its large values, so that the sum is the small values' alone."""
    if type_name == "float":
        name, large, small = "narrow-edge", 2 - 2.0**-23, (1 + 2.0**-23) * 2.0**-26
    elif type_name == "double":
        name, large, small = "split-edge", 1.0, 2.0**-60 + 2.0**-100
    else:
        return []
    pair = [small] + [large] * 159 + [-large] * 96 + [-large] * 63 + [0.0] * 193
    return [(name, pair * 64)] + chain_edge_case(type_name)


def chain_edge_case(type_name):
    """Blocks that chain (add_blocks() in exact_sum.cl, on CPUs) one step past what their sums
    hold exactly."""
    if type_name == "double":
        return bound_edge_case() + lane_pairs_edge_case()
    if type_name != "float":
        return []
    return float_chain_edge_case()


def lane_pairs_edge_case():
    """A chain of double blocks (a CPU work-item's, with -w 1) whose high sums fill their lanes:
    a block of 1.5 sets the bound to 8, and fifteen blocks of 7.75 + 2^-39 (one of them
    7.75 + 2^-38) follow, on the high sums' grid of 2^-39. Each lane's high sum is then near
    2^50 steps of that grid, eight lanes' below 2^53 (lane_pairs() adds them so), and sixteen
    lanes' past it, an odd number of steps that one double would round. A block of -117.75
    cancels the values but for their 2^-39 parts, which are the sum; zeros fill the pattern to
    32 blocks, so that each run of -w 1 starts with it."""
    large = 7.75 + 2.0**-39
    chain = [1.5] * 256 + [large + 2.0**-39] + [large] * (15 * 256 - 1)
    pattern = chain + [-117.75] * 256 + [0.0] * (15 * 256)
    return [("lane-pairs-edge", pattern * 16)]


def bound_edge_case():
    """Double blocks of 256 values (a CPU work-item's, with -w 1), one of which reaches the
    bound of the chain before it: a block of ones sets the chain's bound to 8, and the next
    block holds 2^70, which a chain bounded by 8 would take with the ones of its lane rounded
    away (Fast2Sum needs the high sum the larger). The block after it cancels 2^70. The three
    blocks repeat, so that each work-item of -w 1 starts its run with them. The second input
    has -2^70 first, which only its magnitude puts past the bound."""
    pattern = [1.0] * 256 + [2.0**70] + [1.0] * 255 + [-2.0**70] + [1.0] * 255
    negated = [1.0] * 256 + [-2.0**70] + [1.0] * 255 + [2.0**70] + [1.0] * 255
    return [("bound-edge", pattern * 32), ("negative-bound-edge", negated * 32)]


def float_chain_edge_case():
    """Float blocks that chain (add_blocks() in exact_sum.cl, on CPUs) one block past what
    their sums hold exactly: 17 blocks of 256 values whose exponents span 21 binades, where
    n * 2^21 <= 2^25 lets 16 chain. The first block starts with the smallest value, whose last
    bit the lane's sum rounds away once past 2^9, in the 17th block; the values that cancel the
    large ones follow, then zeros, so that the sum is the small values' alone."""
    large, small = 2 - 2.0**-23, (1 + 2.0**-23) * 2.0**-21
    count = 17 * 256 - 1  # large values after the smallest one, and as many that cancel them
    pattern = [small] + [large] * count + [-large] * count + [0.0] * (30 * 256 + 1)
    return [("chain-edge", pattern * 16)]


def strided_edge_case(type_name):
    """Floats that a GPU work-item's chain (add_vectors() in exact_sum.cl, read strided) sums
    one step past what its double sum holds: the smallest value first, whose exponent lies 24
    binades below the large ones', so that n * 2^24 <= 2^29 lets a chain take 32 values a lane.
    A lane's sum passes 2^6, where its grid rounds the smallest value's last bit away, with
    its 33rd value. Every work-item of a strided launch reads the first half's large values,
    then the second half's that cancel them; the sum is the smallest value alone. Doubles:
    turn_edge_cases()."""
    if type_name == "double":
        return turn_edge_cases()
    if type_name != "float":
        return []
    large, small = 2 - 2.0**-23, (1 + 2.0**-23) * 2.0**-24
    half = 1 << 13
    return [("strided-edge", [small] + [large] * (half - 1) + [-large] * (half - 1) + [0.0])]


def turn_edge_cases():
    """Doubles that a GPU work-item's turns (add_vectors() in exact_sum.cl, read strided) must
    not take as they come. turn-overflow: turns of 1.5 * 2^1022, whose lanes' sums overflow
    with their third value unless the turn takes the overflow guard, then as many that cancel
    them, and 1. turn-bound-edge: ones, which start chains bounded by 32, but for 2^70 and
    -2^70 in the middle, past every layout's first turn: a chain that took 2^70 would round its
    splitter's part of the sum away. turn-reach-edge: each vector holds 1, -1 and twice
    2^-31 (1 + 2^-52), whose last bit, 2^-83, lies past the low sums' grid of a chain that
    ones start, 2^-80; the sum is the small values' alone."""
    half = 1 << 13
    overflow = [math.ldexp(1.5, 1022)] * half + [-math.ldexp(1.5, 1022)] * half + [1.0]
    bound = [1.0] * (1 << 18)
    bound[1 << 17], bound[(1 << 17) + 4004] = 2.0**70, -2.0**70
    small = 2.0**-31 * (1 + 2.0**-52)
    return [("turn-overflow", overflow), ("turn-bound-edge", bound),
            ("turn-reach-edge", [1.0, -1.0, small, small] * (1 << 16))]


def half_chain_edge_case(type_name):
    """float16 values that a lane of a CPU's blocks (a work-item's, with -w 1) sums one step
    past the 2^13 values a lane that halves_sum_exactly() in exact_sum.cl allows: the least
    float16 value first, then the largest one, whose sum passes 2^29 in that lane with its
    8197th value, where the least value's bit is rounded away, then as many that cancel them.
    The first run of a launch of up to 8 work-groups (2 compute units) holds that lane's first
    8197 values; the sum is the least value alone."""
    if type_name != "float16":
        return []
    count = 5 << 17
    return [("half-chain-edge", [2.0**-24] + [65504.0] * count + [-65504.0] * count)]


def quad_edge_cases(type_name):
    """bfloat16 blocks (a CPU work-item's, with -w 1) one step past what float sums of four of
    a lane's values hold (quads_sum_exactly() in exact_sum.cl), which must widen each value.
    quad-edge: a block's first value, (1 + 2^-7) * 2^-15, lies 15 binades below the
    2 - 2^-7 that follow it, so that its lane's four values add up past 2^24 steps of its last
    bit, which a float sum rounds away; a block cancels the large values, and zeros fill the
    pattern to two blocks, so that the sum is the small values'. quad-top-edge: four blocks
    that start with 64 values of 1.5 * 2^125 (one of them 2^112, 13 binades below), of their
    negation, of 1.5 * 2^126 and of its negation: four of the first add up in float to
    1.5 * 2^127, four of the third past the largest float. The sum is the 2^112 values'."""
    if type_name != "bfloat16":
        return []
    large, small = 2 - 2.0**-7, (1 + 2.0**-7) * 2.0**-15
    edge = [small] + [large] * 63 + [0.0] * 192 + [-large] * 63 + [0.0] * 193
    blocks = [[1.5 * 2.0**125] * 63 + [2.0**112], [-1.5 * 2.0**125] * 63,
              [1.5 * 2.0**126] * 64, [-1.5 * 2.0**126] * 64]
    top = [x for block in blocks for x in block + [0.0] * (256 - len(block))]
    return [("quad-edge", edge * 64), ("quad-top-edge", top * 32)]


def bits(x, type_name):
    """The bits of x as the sum of `type_name` values prints it (in the result's type)."""
    if math.isnan(x):
        return "nan"
    return struct.pack("<" + FORMATS[RESULT[type_name]][0], x).hex()


def run(clreduce, arguments, environment=None):
    env = dict(os.environ)
    env.update(environment or {})
    return subprocess.run([clreduce] + arguments, capture_output=True, text=True, env=env)


def layouts(length, strided):
    """The options of each layout to run, and the environment it needs. `strided` is a folder
    whose exact_sum.cl reads as on GPUs (strided across the launch, in chains), or None."""
    yield ["-t", "cpu"], {}  # a work-item a work-group, as -w 1
    yield ["-t", "cpu", "-w", "256"], {}  # a GPU's default
    yield ["-t", "cpu", "-w", "64"], {}
    yield ["-t", "cpu", "--max-buffer", str(max(1, length // 3))], {}
    yield ["-t", "cpu", "--host-input", "--chunk", str(length // 5 + 1)], {}
    yield ["-t", "cpu", "-d", "0,1"], {"POCL_DEVICES": "pthread pthread"}
    if strided:
        yield ["-t", "cpu", "-w", "256", "--kernels", strided], {}
        yield ["-t", "cpu", "--kernels", strided], {}  # a work-item a work-group: long chains


def check(clreduce, work_dir, strided):
    failures = 0
    for type_name in FORMATS:
        for name, values in (list(cases(type_name)) + fold_case(clreduce, type_name) +
                             fold_spill_case(type_name) +
                             block_edge_case(type_name) + strided_edge_case(type_name) +
                             half_chain_edge_case(type_name) + quad_edge_cases(type_name)):
            path = os.path.join(work_dir, "%s-%s.raw" % (type_name, name))
            with open(path, "wb") as file:
                file.write(to_bytes(values, type_name))
            expected = bits(exact_sum(values, type_name), type_name)
            for options, environment in layouts(len(values), strided):
                arguments = ["--exact", "--input", path, "--data-type", type_name, "-l",
                             str(len(values)), "-q"] + options
                result = run(clreduce, arguments, environment)
                printed = result.stdout.strip()
                got = bits(float(printed), type_name) if result.returncode == 0 else None
                if got != expected:
                    failures += 1
                    print("FAIL %s %s %s: exit %d, printed %r (%s), the oracle's bits %s\n%s"
                          % (type_name, name, " ".join(options), result.returncode, printed,
                             got, expected, result.stderr))
            print("ok %s %s: %s" % (type_name, name, expected))
    return failures


NPY_DESCR = {"float": "<f4", "double": "<f8", "float16": "<f2", "bfloat16": None}


def write_npy(path, descr, shape, fortran, data):
    """A .npy file (version 1.0) of `data`'s bytes with that dtype, shape and order."""
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, "(%s)" % "".join("%d, " % extent for extent in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as file:
        file.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        file.write(data)


def read_npy_bytes(path):
    with open(path, "rb") as file:
        content = file.read()
    return content[10 + struct.unpack("<H", content[8:10])[0]:]


def check_axes(clreduce, work_dir):
    """--axis --exact: the rows of a C-order array, and the columns of its bytes read in
    Fortran order, each the oracle's bits (bfloat16 has no .npy dtype: a raw file is one
    axis)."""
    failures = 0
    for type_name, descr in NPY_DESCR.items():
        if descr is None:
            continue
        rows = [(name, values) for name, values in cases(type_name) if len(values) <= 50001]
        width = max(len(values) for _, values in rows)
        data = b"".join(to_bytes(values + [0.0] * (width - len(values)), type_name)
                        for _, values in rows)
        result_code = FORMATS[RESULT[type_name]][0]
        for fortran, shape, axis in ((False, (len(rows), width), "1"),
                                     (True, (width, len(rows)), "0")):
            path = os.path.join(work_dir, "%s-axis-%s.npy" % (type_name, axis))
            output = os.path.join(work_dir, "%s-axis-%s-sums.npy" % (type_name, axis))
            write_npy(path, descr, shape, fortran, data)
            result = run(clreduce, ["--exact", "--input", path, "--axis", axis, "--output",
                                    output, "-t", "cpu", "-q"])
            sums = (struct.unpack("<%d%s" % (len(rows), result_code), read_npy_bytes(output))
                    if result.returncode == 0 else [None] * len(rows))
            for (name, values), got in zip(rows, sums):
                expected = bits(exact_sum(values, type_name), type_name)
                if got is None or bits(got, type_name) != expected:
                    failures += 1
                    print("FAIL %s %s along axis %s: exit %d, %r, the oracle's bits %s\n%s"
                          % (type_name, name, axis, result.returncode, got, expected,
                             result.stderr))
            print("ok %s: %d rows along axis %s" % (type_name, len(rows), axis))
        failures += check_long_row(clreduce, work_dir, type_name, descr)
    return failures


def check_long_row(clreduce, work_dir, type_name, descr):
    """Each long input as the one row of a (1, n) array: a run that ExactSum cuts in chunks,
    whose rows the rounding launch adds up."""
    failures = 0
    for name, values in cases(type_name):
        if len(values) < 20000:
            continue
        path = os.path.join(work_dir, "%s-%s-row.npy" % (type_name, name))
        write_npy(path, descr, (1, len(values)), False, to_bytes(values, type_name))
        output = os.path.join(work_dir, "%s-%s-row-sum.npy" % (type_name, name))
        result = run(clreduce, ["--exact", "--input", path, "--axis", "1", "--output", output,
                                "-t", "cpu", "-v"])
        expected = bits(exact_sum(values, type_name), type_name)
        chunked = re.search(r"exact: 1 results of \d+ values, \d+ work-groups each", result.stdout)
        got = (bits(struct.unpack("<" + FORMATS[RESULT[type_name]][0],
                                  read_npy_bytes(output))[0], type_name)
               if result.returncode == 0 else None)
        if result.returncode != 0 or not chunked or got != expected:
            failures += 1
            print("FAIL %s %s as one row: exit %d, %r, the oracle's bits %s\n%s%s"
                  % (type_name, name, result.returncode, got, expected, result.stdout,
                     result.stderr))
        print("ok %s %s as one row, in chunks: %s" % (type_name, name, expected))
    return failures


# The inputs a mutant must fail on, where not the float and double ones with cancellation:
# entries left behind by fold() only where it hands over first entries alone, which
# cancellation never lets it do; what fold()'s additions spill only where the expansions
# overflow in the fold, and its overflow guard only where its sums overflow; a block's sum
# only where a CPU work-item's blocks qualify (float values close in magnitude: not the
# cancellation's), and only the block edges' blocks lose what their sums cannot hold (for
# bfloat16, the float sums of four values: quad_edge_cases()).
MUTANT_INPUTS = {
    "drop-left-behind": (("float", "fold-quarters"), ("double", "fold-quarters")),
    "drop-fold-spill": (("float", "fold-spills"), ("double", "fold-spills")),
    "unguarded-fold": (("double", "overflow-in-fold"),),
    "drop-block-sum": (("float", "alternating"), ("float", "all-equal"),
                       ("double", "cancellation"), ("double", "alternating")),
    "narrow-span": (("float", "narrow-edge"), ("float", "chain-edge")),
    "one-lane-sum": (("double", "lane-pairs-edge"),),
    "ignore-split-loss": (("double", "split-edge"),),
    "ignore-bound": (("double", "bound-edge"),),
    "strided-chain-bits": (("float", "strided-edge"),),
    "strided-turn-bound": (("double", "turn-overflow"),),
    "strided-ignore-bound": (("double", "turn-bound-edge"),),
    "strided-low-reach": (("double", "turn-reach-edge"),),
    "long-half-chain": (("float16", "half-chain-edge"),),
    "wide-quad-span": (("bfloat16", "quad-edge"),),
    "high-quad-top": (("bfloat16", "quad-top-edge"),),
}
CANCELLATION = tuple((type_name, name) for type_name in ("float", "double")
                     for name in ("cancellation", "alternating"))


def check_mutants(clreduce, work_dir, mutant_dir):
    """Every mutant must fail (exit 1) on each input with cancellation, in one work-group
    size or another (1: a work-item's run fills blocks): a lost row shows only where that row
    is not zero, and a lost value below half an ulp of the sum changes no correctly rounded
    result, so no check of any result can see it."""
    failures = 0
    for mutant in sorted(os.listdir(mutant_dir)):
        for type_name, name in MUTANT_INPUTS.get(mutant, CANCELLATION):
            path = os.path.join(work_dir, "%s-%s.raw" % (type_name, name))
            exits = [run(clreduce, ["--exact", "--input", path, "--data-type", type_name,
                                    "-t", "cpu", "-w", size, "--kernels",
                                    os.path.join(mutant_dir, mutant)]).returncode
                     for size in ("256", "64", "1")]
            verdict = "ok" if 1 in exits and set(exits) <= {0, 1} else "FAIL"
            failures += verdict == "FAIL"
            print("%s mutant %s on %s %s: exits %s with -w 256, 64, 1"
                  % (verdict, mutant, type_name, name, exits))
    return failures


def main():
    clreduce, work_dir = sys.argv[1], sys.argv[2]
    folders = dict(zip(sys.argv[3::2], sys.argv[4::2]))  # --mutants DIR, --strided DIR
    os.makedirs(work_dir, exist_ok=True)
    failures = (check(clreduce, work_dir, folders.get("--strided")) +
                check_axes(clreduce, work_dir))
    if "--mutants" in folders:
        failures += check_mutants(clreduce, work_dir, folders["--mutants"])
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
