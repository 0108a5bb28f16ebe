#pragma once
// The choices that shape a reduction: what is reduced (the op, ops.hpp), how a work-group combines
// its work-items' values (the path), and how the work-groups' results meet (the finish).

#include "clreduce/ops.hpp"

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

} // namespace clreduce
