#pragma once
// The choices that shape a reduction: what is reduced (the op, ops.hpp), how a work-group combines
// its work-items' values (the path), and how the work-groups' results meet (the finish); the
// Recipe that a Reducer is built for gathers them, and a Pass is one launch of its plan.

#include "clreduce/ops.hpp"
#include "clreduce/types.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace clreduce {

/// How a work-group combines its work-items' values, best first.
enum class Path {
    work_group, // the work_group_reduce_<op> built-in
    sub_group,  // sub_group_reduce_<op>, then the sub-groups' partials in local memory
    tree,       // the textbook tree in local memory, valid on every device
};

/// How the work-groups' partial results become one value.
enum class Finish {
    passes,     // more launches of the same kernel, until one value is left
    last_group, // in the same launch: the work-group that finishes last reduces the partials
};

/// How much each pass shrinks its input.
enum class Factor {
    device,   // a few work-groups per compute unit, each work-item folding many values
    textbook, // 2 x the work-group size, as in the published sample
};

/// What a pass reads: the input's values (the first pass), or the partials that a pass left
/// (every later one). Each has a program of its own where their types differ.
enum class Reads { values, partials };

std::string name_of(Path path);
std::string name_of(Factor factor);
std::string name_of(Finish finish);

/// What a Reducer is built for. The defaults reduce int32 by sum with the best the device
/// reports.
struct Recipe {
    DataType type = DataType::int32;
    Op op = Op::sum;
    std::optional<DataType> accumulate; // nullopt: accumulator_for(type, op)
    Expressions user; // Op::custom's reduce and identity, and a map for any op but any and all
    std::optional<Path> path;        // nullopt: the best path the device reports for the op
    Factor factor = Factor::device;  // how much each pass shrinks its input
    std::optional<Finish> finish;    // nullopt: auto, one launch where the device allows it
    std::size_t work_group_size = 0; // 0: the device's best
};
bool operator==(const Recipe& a, const Recipe& b);

/// How one pass is launched: each work-group reduces its share of the input to one value,
/// and, in a finishing pass, the last work-group to end reduces those values to one.
struct Pass {
    std::uint64_t in = 0;            // values read
    std::size_t work_groups = 0;     // also the partial results written
    std::size_t work_group_size = 0; // a power of two
    bool finishes = false;           // Finish::last_group with more than one work-group
    std::uint64_t out() const { return finishes ? 1 : work_groups; }
};

} // namespace clreduce
