#pragma once
// Combining the ranks' results with MPI, with clreduce's semantics: the host's combine() (the
// op row's host twin) as a user-defined MPI op, so that integer sums and products wrap and
// each op treats NaN as the kernel does; argmin's and argmax's pairs (value, index in the whole
// input) combine as the kernel's op combines them, so the first index wins whatever the ranks.
// A user's op has no host twin: rank 0's device combines the ranks' results.

#include "clreduce/kinds.hpp"
#include "clreduce/reducer.hpp"
#include "clreduce/types.hpp"

#include <functional>
#include <mpi.h>
#include <string>
#include <vector>

namespace clreduce::mpi {

class Combiner {
public:
    /// Combines results of `accumulator` with `op`.
    Combiner(DataType accumulator, Op op);
    ~Combiner();
    Combiner(const Combiner&) = delete;
    Combiner& operator=(const Combiner&) = delete;

    /// What combines the ranks' results on rank 0's device: a user's op has no host twin.
    using OnDevice = std::function<Reduction(const std::vector<Reduction>&)>;

    /// MPI_Reduce of every rank's result (its value and, for argmin and argmax, its index) to
    /// rank 0 (a collective); the combined result on rank 0, `mine` elsewhere. A user's op
    /// (Op::custom): MPI_Gather of the results' bytes, which `on_device` combines on rank 0.
    Reduction reduce_to_root(const Reduction& mine, MPI_Comm comm, const OnDevice& on_device) const;

    /// The same for `count` results a rank, laid out as the kernels write them (argmin's and
    /// argmax's pairs: partial_size() in ops.hpp), combined element-wise into `combined` on
    /// rank 0 (a collective; `combined` is read on rank 0 alone). Not for a user's op.
    void reduce_to_root(const void* mine, void* combined, int count, MPI_Comm comm) const;

    /// MPI_Gatherv of every rank's `count` results (laid out as above) to rank 0, in rank
    /// order (a collective): their bytes on rank 0, nothing elsewhere.
    std::vector<unsigned char> gather_to_root(const void* mine, int count, MPI_Comm comm) const;

    /// e.g. "MPI_UINT32_T, clreduce's sum (user-defined, commutative)".
    std::string description() const;
    /// How reduce_to_root() combines results, for the report: "MPI_Reduce (description())", or
    /// for a user's op "MPI_Gather to rank 0 of each rank's int32, combined there by the user's
    /// op on its device".
    std::string call() const;

private:
    DataType type_;
    bool indexed_;
    bool on_device_; // a user's op: gathered, combined by rank 0's device
    MPI_Datatype datatype_ = MPI_DATATYPE_NULL;
    std::string datatype_name_;
    MPI_Op op_ = MPI_OP_NULL;
    std::string op_name_;
};

} // namespace clreduce::mpi
