#include "combine.hpp"

#include "detail/reference.hpp"
#include "place.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

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
    if constexpr (op == Op::argmin || op == Op::argmax) { // pairs: the first index wins
        const auto* from = static_cast<const IndexedValue<T>*>(in);
        auto* into = static_cast<IndexedValue<T>*>(in_out);
        for (int i = 0; i < *count; ++i)
            into[i] = combine_indexed(op, from[i], into[i]);
    } else {
        const auto* from = static_cast<const T*>(in);
        auto* into = static_cast<T*>(in_out);
        for (int i = 0; i < *count; ++i)
            into[i] = combine(op, from[i], into[i]);
    }
}

/// combine_like_the_kernel<T, op>, for an op known at run time.
template <typename T, std::size_t... I>
MPI_User_function* user_function(Op op, std::index_sequence<I...>) {
    MPI_User_function* const functions[] = {combine_like_the_kernel<T, static_cast<Op>(I)>...};
    return functions[static_cast<std::size_t>(op)];
}

} // namespace

Combiner::Combiner(DataType accumulator, Op op)
    : type_(accumulator)
    , indexed_(info(op).indexed)
    , on_device_(op == Op::custom) {
    if (on_device_) { // its results gathered as bytes
        MPI_Type_contiguous(static_cast<int>(info(accumulator).size), MPI_BYTE, &datatype_);
        MPI_Type_commit(&datatype_);
        datatype_name_ = "MPI_Gather to rank 0 of each rank's " + name_of(accumulator);
        op_name_ = "combined there by the user's op on its device";
        return;
    }
    visit_accumulator(accumulator, [&](auto value) {
        using T = decltype(value);
        std::tie(datatype_, datatype_name_) = mpi_type<T>();
        if (indexed_) { // IndexedValue<T>'s bytes, which the user function alone reads
            MPI_Type_contiguous(sizeof(IndexedValue<T>), MPI_BYTE, &datatype_);
            MPI_Type_commit(&datatype_);
            datatype_name_ += " and MPI_INT64_T index pair (" +
                              std::to_string(sizeof(IndexedValue<T>)) + " bytes)";
        }
        MPI_Op_create(user_function<T>(op, std::make_index_sequence<op_count>{}), 1, &op_);
    });
    op_name_ = "clreduce's " + name_of(op) + " (user-defined, commutative)";
}

Combiner::~Combiner() {
    if (!on_device_)
        MPI_Op_free(&op_);
    if (indexed_ || on_device_)
        MPI_Type_free(&datatype_);
}

Reduction Combiner::reduce_to_root(const Reduction& mine, MPI_Comm comm,
                                   const OnDevice& on_device) const {
    // Laid out as the kernel's pair (partial_size() in ops.hpp): the value, then the index.
    constexpr int size = 2 * sizeof(std::int64_t);
    unsigned char own[size] = {};
    std::visit([&](const auto& held) { std::memcpy(own, &held, sizeof held); }, mine.value);
    if (mine.index)
        std::memcpy(own + sizeof(std::int64_t), &*mine.index, sizeof(std::int64_t));
    const auto [rank, ranks] = place_in(comm);
    const auto result_of = [&](const unsigned char* bytes) {
        Reduction result;
        result.value = scalar_from_bytes(type_, bytes);
        if (indexed_)
            result.index = index_of_pair(bytes);
        return result;
    };
    if (on_device_) {
        std::vector<unsigned char> all(rank == 0 ? static_cast<std::size_t>(ranks) * size : 0);
        MPI_Gather(own, size, MPI_BYTE, all.data(), size, MPI_BYTE, 0, comm);
        if (rank != 0)
            return mine;
        std::vector<Reduction> results;
        for (int i = 0; i < ranks; ++i)
            results.push_back(result_of(all.data() + static_cast<std::size_t>(i) * size));
        return on_device(results);
    }
    unsigned char combined[size] = {};
    reduce_to_root(own, combined, 1, comm);
    return rank == 0 ? result_of(combined) : mine;
}

void Combiner::reduce_to_root(const void* mine, void* combined, int count, MPI_Comm comm) const {
    MPI_Reduce(mine, combined, count, datatype_, op_, 0, comm);
}

std::vector<unsigned char> Combiner::gather_to_root(const void* mine, int count,
                                                    MPI_Comm comm) const {
    const auto [rank, ranks] = place_in(comm);
    std::vector<int> counts(rank == 0 ? ranks : 0);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    std::vector<int> displacements(counts.size());
    long total = 0; // in results
    for (std::size_t k = 0; k < counts.size(); ++k) {
        displacements[k] = static_cast<int>(total);
        total += counts[k];
    }
    int size = 0;
    MPI_Type_size(datatype_, &size);
    std::vector<unsigned char> gathered(static_cast<std::size_t>(total) * size);
    MPI_Gatherv(mine, count, datatype_, gathered.data(), counts.data(), displacements.data(),
                datatype_, 0, comm);
    return gathered;
}

std::string Combiner::description() const {
    return datatype_name_ + ", " + op_name_;
}

std::string Combiner::call() const {
    return on_device_ ? description() : "MPI_Reduce (" + description() + ")";
}

} // namespace clreduce::mpi
