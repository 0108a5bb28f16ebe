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

/// The host's combine() as a user-defined MPI op: the same arithmetic as the kernel's, for
/// every op (wrapping integer sums and products, NaN as each op treats it).
template <typename T, Op op>
void combine_like_the_kernel(void* in, void* in_out, int* count, MPI_Datatype*) {
    const auto* from = static_cast<const T*>(in);
    auto* into = static_cast<T*>(in_out);
    for (int i = 0; i < *count; ++i)
        into[i] = combine(op, from[i], into[i]);
}

/// combine_like_the_kernel<T, op>, for an op known at run time.
template <typename T, std::size_t... I>
MPI_User_function* user_function(Op op, std::index_sequence<I...>) {
    MPI_User_function* const functions[] = {combine_like_the_kernel<T, static_cast<Op>(I)>...};
    return functions[static_cast<std::size_t>(op)];
}

} // namespace

Combiner::Combiner(DataType accumulator, Op op)
    : type_(accumulator) {
    visit_accumulator(accumulator, [&](auto value) {
        using T = decltype(value);
        std::tie(datatype_, datatype_name_) = mpi_type<T>();
        MPI_Op_create(user_function<T>(op, std::make_index_sequence<op_count>{}), 1, &op_);
    });
    op_name_ = "clreduce's " + name_of(op) + " (user-defined, commutative)";
}

Combiner::~Combiner() {
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
