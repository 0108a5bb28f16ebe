#pragma once
// Combining the ranks' results with MPI, with clreduce's semantics: integer sums wrap (reduced
// as the unsigned twin), floating-point min and max ignore NaN like fmin and fmax.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <mpi.h>
#include <string>

namespace clreduce::mpi {

class Combiner {
public:
    Combiner(DataType type, Op op);
    ~Combiner();
    Combiner(const Combiner&) = delete;
    Combiner& operator=(const Combiner&) = delete;

    /// MPI_Reduce of every rank's `value` to rank 0 (a collective); the result on rank 0,
    /// `value` elsewhere.
    Scalar reduce_to_root(const Scalar& value, MPI_Comm comm) const;

    /// e.g. "MPI_UINT32_T, MPI_SUM" or "MPI_FLOAT, fmin (user-defined, commutative)".
    std::string description() const;

private:
    DataType type_;
    MPI_Datatype datatype_;
    std::string datatype_name_;
    MPI_Op op_;
    std::string op_name_;
    bool user_op_ = false; // op_ was created here and is freed with it
};

} // namespace clreduce::mpi
