#include "clreduce/ops.hpp"

#include <cstring>

namespace clreduce {

const std::vector<OpInfo>& all_ops() {
    using I = Identity;
    using R = Rounding;
    // ?: selects lane by lane for vectors; select() would need a long condition for double.
    constexpr const char* nan_min = "isunordered(a, b) ? a + b : fmin(a, b)";
    constexpr const char* nan_max = "isunordered(a, b) ? a + b : fmax(a, b)";
    constexpr const char* arg_integer_min =
        "b.value < a.value || (b.value == a.value && b.index < a.index)";
    constexpr const char* arg_integer_max =
        "b.value > a.value || (b.value == a.value && b.index < a.index)";
    // Without branches on NaN: b wins where it wins in index order (below), or ties (both
    // NaN, or equal) with a smaller index.
    constexpr const char* arg_floating_min =
        "(!(a.value <= b.value) && a.value == a.value) || (!(b.value > a.value) && "
        "isnan(a.value) == isnan(b.value) && b.index < a.index)";
    constexpr const char* arg_floating_max =
        "(!(a.value >= b.value) && a.value == a.value) || (!(b.value < a.value) && "
        "isnan(a.value) == isnan(b.value) && b.index < a.index)";
    // clang-format off
    static const std::vector<OpInfo> ops = {
        // op, name, identity, integer text, floating-point text, built-in (and for floating
        // point?), map, map4, forced accumulator, boolean result, rounding
        {Op::sum, "sum", I::zero, "as_$T(as_$U(a) + as_$U(b))", "a + b", "add", true,
         nullptr, nullptr, {}, false, R::additive},
        {Op::prod, "prod", I::one, "as_$T(as_$U(a) * as_$U(b))", "a * b", nullptr, false,
         nullptr, nullptr, {}, false, R::multiplicative},
        // min and max propagate NaN, as np.min and np.max do: a + b is NaN where either is.
        {Op::min, "min", I::highest, "min(a, b)", nan_min, "min", false,
         nullptr, nullptr, {}, false, R::none},
        {Op::max, "max", I::lowest, "max(a, b)", nan_max, "max", false,
         nullptr, nullptr, {}, false, R::none},
        // fmin and fmax ignore a NaN; with NaN as the identity only NaNs give NaN.
        {Op::nanmin, "nanmin", I::highest_or_nan, "min(a, b)", "fmin(a, b)", "min", false,
         nullptr, nullptr, {}, false, R::none},
        {Op::nanmax, "nanmax", I::lowest_or_nan, "max(a, b)", "fmax(a, b)", "max", false,
         nullptr, nullptr, {}, false, R::none},
        // b wins: the first NaN, else the extreme value, and of equal values the first index,
        // as np.argmin and np.argmax. The index makes the op associative and commutative.
        // In index order b wins only if strictly better, or the first NaN: !(a >= b) holds
        // where b > a or either is NaN, and a == a keeps a NaN that a holds.
        {Op::argmin, "argmin", I::highest, arg_integer_min, arg_floating_min, nullptr, false,
         nullptr, nullptr, {}, false, R::none, true, "b.value < a.value",
         "!(a.value <= b.value) && a.value == a.value"},
        {Op::argmax, "argmax", I::lowest, arg_integer_max, arg_floating_max, nullptr, false,
         nullptr, nullptr, {}, false, R::none, true, "b.value > a.value",
         "!(a.value >= b.value) && a.value == a.value"},
        // A vector comparison gives -1 for true, a scalar one 1.
        {Op::any, "any", I::zero, "a | b", nullptr, "max", false,
         "x != 0", "convert_uint4(-(x != (value4_t)0))", DataType::uint32, true, R::none},
        {Op::all, "all", I::one, "a & b", nullptr, "min", false,
         "x != 0", "convert_uint4(-(x != (value4_t)0))", DataType::uint32, true, R::none},
        // The user's --reduce and --identity (Expressions) fill in the text.
        {Op::custom, "custom", I::zero, nullptr, nullptr, nullptr, false,
         nullptr, nullptr, {}, false, R::multiplicative},
    };
    // clang-format on
    return ops;
}

const OpInfo& info(Op op) {
    return all_ops().at(static_cast<std::size_t>(op));
}

std::string name_of(Op op) {
    return info(op).name;
}

bool empty_gives_identity(Op op) {
    const auto identity = info(op).identity;
    return op != Op::custom && (identity == Identity::zero || identity == Identity::one);
}

std::size_t partial_size(Op op, DataType accumulator) {
    // The pair's layout in OpenCL C and C++ alike: the value, then the 8-aligned int64 index.
    return info(op).indexed ? 2 * sizeof(std::int64_t) : info(accumulator).size;
}

std::int64_t index_of_pair(const void* pair) {
    std::int64_t index;
    std::memcpy(&index, static_cast<const unsigned char*>(pair) + sizeof index, sizeof index);
    return index;
}

DataType accumulator_for(DataType type, Op op, std::optional<DataType> requested) {
    return info(op).accumulator.value_or(requested.value_or(info(type).accumulator));
}

std::string identity_text(Op op, DataType accumulator) {
    const auto& type = info(accumulator);
    switch (info(op).identity) {
    case Identity::zero:
        return "0";
    case Identity::one:
        return "1";
    case Identity::highest:
        return type.highest;
    case Identity::lowest:
        return type.lowest;
    case Identity::highest_or_nan:
        return type.floating() ? "NAN" : type.highest;
    case Identity::lowest_or_nan:
        break;
    }
    return type.floating() ? "NAN" : type.lowest;
}

bool operator==(const Expressions& a, const Expressions& b) {
    return a.reduce == b.reduce && a.identity == b.identity && a.map == b.map;
}

std::optional<HostMap> host_map(const std::string& map) {
    std::string text;
    for (const char c : map)
        if (c != ' ')
            text += c;
    if (text.empty())
        return HostMap::none;
    if (text == "x*x")
        return HostMap::square;
    if (text == "fabs(x)")
        return HostMap::absolute;
    if (text == "x!=0")
        return HostMap::nonzero;
    return std::nullopt;
}

std::string result_text(Op op, const Scalar& value) {
    if (!info(op).boolean)
        return to_string(value);
    return std::visit([](auto x) { return x != 0 ? "true" : "false"; }, value);
}

} // namespace clreduce
