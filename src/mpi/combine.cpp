#include "combine.hpp"

#include "clreduce/reference.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>
#include <variant>

namespace clreduce::mpi {
namespace {

/// The MPI datatype of T, and its name for the report.
template <typename T>
std::pair<MPI_Datatype, const char*> mpi_type() {
    if constexpr (std::is_same_v<T, std::int32_t>)
        return {MPI_INT32_T, "MPI_INT32_T"};
    else if constexpr (std::is_same_v<T, std::uint32_t>)
        return {MPI_UINT32_T, "MPI_UINT32_T"};
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return {MPI_INT64_T, "MPI_INT64_T"};
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        return {MPI_UINT64_T, "MPI_UINT64_T"};
    else if constexpr (std::is_same_v<T, float>)
        return {MPI_FLOAT, "MPI_FLOAT"};
    else
        return {MPI_DOUBLE, "MPI_DOUBLE"};
}

/// A user-defined MPI op: the host's combine(), for MPI_MIN and MPI_MAX on floating point
/// leave NaN to the implementation while the kernel's fmin and fmax ignore it.
template <typename T, Op op>
void combine_like_the_kernel(void* in, void* in_out, int* count, MPI_Datatype*) {
    const auto* from = static_cast<const T*>(in);
    auto* into = static_cast<T*>(in_out);
    for (int i = 0; i < *count; ++i)
        into[i] = combine(op, from[i], into[i]);
}

} // namespace

Combiner::Combiner(DataType type, Op op)
    : type_(type) {
    visit_type(type, [&](auto value) {
        using T = decltype(value);
        if constexpr (std::is_integral_v<T>) {
            // A sum reduced on the unsigned twin wraps like the kernel's; the bits are the same.
            std::tie(datatype_, datatype_name_) =
                op == Op::sum ? mpi_type<std::make_unsigned_t<T>>() : mpi_type<T>();
        } else {
            std::tie(datatype_, datatype_name_) = mpi_type<T>();
        }
        if (op == Op::sum) {
            op_ = MPI_SUM;
            op_name_ = "MPI_SUM";
        } else if (std::is_integral_v<T>) {
            op_ = op == Op::min ? MPI_MIN : MPI_MAX;
            op_name_ = op == Op::min ? "MPI_MIN" : "MPI_MAX";
        } else {
            MPI_Op_create(op == Op::min ? combine_like_the_kernel<T, Op::min>
                                        : combine_like_the_kernel<T, Op::max>,
                          1, &op_);
            user_op_ = true;
            op_name_ = std::string(op == Op::min ? "fmin" : "fmax") +
                       " (user-defined, commutative: NaN ignored)";
        }
    });
}

Combiner::~Combiner() {
    if (user_op_)
        MPI_Op_free(&op_);
}

Scalar Combiner::reduce_to_root(const Scalar& value, MPI_Comm comm) const {
    unsigned char combined[sizeof(std::uint64_t)] = {};
    const void* mine = std::visit([](const auto& held) -> const void* { return &held; }, value);
    MPI_Reduce(mine, combined, 1, datatype_, op_, 0, comm);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank == 0 ? scalar_from_bytes(type_, combined) : value;
}

std::string Combiner::description() const {
    return datatype_name_ + ", " + op_name_;
}

} // namespace clreduce::mpi
