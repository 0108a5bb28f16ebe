#pragma once
// The kernel's source: built into the library or read from disk, then completed with the op the
// user chose.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace clreduce {

/// reduce.cl's text as the library was built with it (generated from kernels/reduce.cl by
/// cmake/embed-kernel.cmake): a program needs no kernel file.
std::string_view embedded_kernel_source();

/// stream_read.cl's text as the library was built with it: the benchmark's kernel that makes a
/// pass's reads alone, which StreamRead (measure.hpp) appends to a reducer's program text.
std::string_view embedded_stream_read_source();

/// exact_sum.cl's text as the library was built with it: --exact's kernel (exact.hpp).
std::string_view embedded_exact_kernel_source();

/// segmented.cl's text as the library was built with it: the kernels of SegmentedReducer
/// (segmented.hpp), appended to reduce.cl's text, whose declarations they use.
std::string_view embedded_segmented_source();

/// reduce.cl's text: `kernel_dir`/reduce.cl, read now, when `kernel_dir` is given (the tool's
/// --kernels, for readers who edit the kernel), else the embedded text. Throws as
/// read_kernel_file() does.
std::string reduce_kernel_source(const std::string& kernel_dir);

/// The text of the first `file_name` found in `folders`. Throws Error(Errc::kernel_source)
/// naming every path tried when none is there, or the one that cannot be read.
std::string read_kernel_file(const std::string& file_name,
                             const std::vector<std::filesystem::path>& folders);

/// OpenCL C definitions of load(), loadn(), map(), map4(), identity(), op(), op4() and, for a
/// collective path, the relay that reduce.cl declares (work_group_reduce_op or
/// sub_group_reduce_op), for values of `input` reduced in `accumulator`, from the op's and
/// the types' table rows. Integer sums and products work on the unsigned twin so that they
/// wrap around without signed overflow, exactly like the host reference. The user's
/// expressions are pasted in as they are: op() is `user.reduce` for Op::custom, map() is
/// `user.map` where given; their 4-vector forms apply them lane by lane. Where read4 combines
/// a load's values before it maps them (REDUCE_COMBINE_VALUES: type_options()), op4_values()
/// too.
/// argmin and argmax reduce (value, index) pairs (see partial_size() in ops.hpp); `reads`
/// says whether the program reads the input's values, which map() pairs with their indices,
/// or partials, which are pairs already (the input type is then the accumulator's).
std::string op_definitions(Op op, Path path, DataType input, DataType accumulator,
                           const Expressions& user = {}, Reads reads = Reads::values);

/// Whether argmin's or argmax's pairs, where a pass reads values, can take reduce.cl's
/// work-group step as 64-bit keys (-D REDUCE_KEYS, which the Reducer adds where a launch's
/// indices stay below 2^32 - 1; op_definitions() then appends rank_of()): where the values
/// rank in 32 bits, the accumulator's (int32, uint32, float), or, `mapped` false, those of a
/// 1- or 2-byte integer input.
bool pairs_rank_as_keys(Op op, DataType input, DataType accumulator, bool mapped,
                        Reads reads = Reads::values);

/// reduce.cl's text with op_definitions() appended.
std::string complete_kernel_source(const std::string& kernel_text, Op op, Path path, DataType input,
                                   DataType accumulator, const Expressions& user = {},
                                   Reads reads = Reads::values);

/// The -D flags that give reduce.cl its types (REDUCE_INPUT, REDUCE_VALUE, REDUCE_ACCUM and
/// their vectors), how many values one load reads (REDUCE_VALUES_PER_LOAD), for argmin and
/// argmax REDUCE_INDEXED, whose partials are pairs, and REDUCE_INDEXING where the pass reads
/// values, which it pairs with their indices; and for the values of a 1- or 2-byte integer
/// type that the user does not map (`mapped`) how read4 combines a load's quarters before it
/// maps them: REDUCE_COMBINE_VALUES for min and max, in the values' type (bytes: in 32-bit
/// lanes, in which the whole fold runs, REDUCE_FOLD_COMBINED), and for a sum of bytes
/// REDUCE_SUM_BYTES, in 32-bit words (REDUCE_SIGNED_BYTES: int8's); for their argmin and
/// argmax the 32-bit type of the first pass's leads (REDUCE_LEAD, and REDUCE_LEAD_WORDS where
/// int8's and bool's bytes come out of 32-bit words).
std::string type_options(DataType input, DataType accumulator, Op op = Op::sum,
                         Reads reads = Reads::values, bool mapped = false);

/// Whether the first pass picks one of a load's 1-byte values out of 32-bit words: min and max
/// of bytes, whose whole fold runs in 32-bit lanes (REDUCE_FOLD_COMBINED), and argmin and argmax
/// of bytes, a lead a word (REDUCE_LEAD_WORDS; type_options()).
bool picks_bytes_in_words(DataType input, Op op, Reads reads = Reads::values, bool mapped = false);

/// How many loads each of reduce.cl's accumulators takes an iteration of its fold
/// (REDUCE_LOADS_PER_ACCUMULATOR, in type_options()). 2 for:
/// - the any and all of bytes and the product of int8 values multiplied in 32 bits: eight
///   loads of 16 bytes in flight, at 95 to 96% and 93% of the plain stream read on an H100,
///   89 to 92% and 84% with 1;
/// - argmin's and argmax's two accumulators of 32-bit leads (pairs_rank_as_keys()): four in
///   flight, 3 to 10% less time at 2^28 on an H200;
/// - min and max of 2-byte integers, which pick a load's extremes in the values' type: the
///   int16 max of 2^28 took 126.8 to 126.9 us on an H200 so, 130.0 to 131.3 with 1, uint16's
///   1 to 2% less (float16's and bfloat16's, under 1% less, are not taken).
/// 1 elsewhere, where 2 measured no faster (1-byte sums, min and max; 64-bit leads), slower
/// (unsigned products of bytes, also where they multiply in a uint: the uint8 product of 2^24
/// took 12.8 to 12.9 us on an H200 with 2, 12.0 to 12.5 with 1) or was not measured
/// (docs/ops-and-types.md).
unsigned loads_per_accumulator(DataType input, DataType accumulator, Op op,
                               Reads reads = Reads::values, bool mapped = false);

/// Whether a work-group and sub-group built-in computes `op` on `accumulator`.
bool has_builtin(Op op, DataType accumulator);

} // namespace clreduce
