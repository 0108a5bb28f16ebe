#include "detail/reference.hpp"

#include "clreduce/errors.hpp"
#include "clreduce/exact.hpp"

#include <cstring>
#include <execution>
#include <functional>
#include <vector>

namespace clreduce {
namespace {

/// SplitMix64's finaliser: a bijection of 64-bit words that scatters neighbouring inputs.
std::uint64_t scramble(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/// A nonzero integer in [-largest_random_addend, largest_random_addend] from random bits:
/// the top bit gives the sign, the next three the magnitude.
template <typename T>
T small_nonzero_integer(std::uint64_t bits) {
    static_assert(largest_random_addend == 8, "three bits of magnitude");
    const auto magnitude = static_cast<T>(1 + ((bits >> 60) & 7));
    return bits >> 63 ? -magnitude : magnitude;
}

/// The value of T that random bits stand for: an integer with the same bits (C++17 leaves
/// the plain conversion of out-of-range values implementation-defined), odd for a product;
/// for floating point a small integer for a sum, -1 or 1 for a product, else a float in
/// [-1, 1) from as many bits as its significand holds.
template <typename T>
T from_random_bits(std::uint64_t bits, Op op) {
    if constexpr (std::is_same_v<T, Half>) {
        return to_half(from_random_bits<float>(bits, op));
    } else if constexpr (std::is_same_v<T, BFloat16>) {
        return to_bfloat16(from_random_bits<float>(bits, op));
    } else if constexpr (std::is_same_v<T, Boolean>) {
        return {static_cast<std::uint8_t>(bits >> 63)};
    } else if constexpr (std::is_floating_point_v<T>) {
        if (op == Op::sum || op == Op::custom) // a user's op: most likely a sum of some kind
            return small_nonzero_integer<T>(bits);
        if (op == Op::prod)
            return bits >> 63 ? T{-1} : T{1};
        constexpr int digits = std::numeric_limits<T>::digits;
        const auto scaled = static_cast<T>(bits >> (64 - digits - 1)); // [0, 2^(digits+1))
        return scaled / static_cast<T>(std::uint64_t{1} << digits) - T{1};
    } else {
        T value;
        auto high = bits >> (64 - 8 * sizeof(T)); // the best-mixed bits
        if (op == Op::prod)
            high |= 1;
        std::memcpy(&value, &high, sizeof value);
        return value;
    }
}

// Small enough that a million values keep every core busy.
constexpr std::uint64_t chunk = std::uint64_t{1} << 16;

/// Calls `body(begin, end)` for each chunk of [0, length), in parallel. A std::function, so
/// that the parallel algorithm is instantiated once, not for every type, accumulator and op:
/// each instance cost this file seconds of compile time (63 s in all, for 13 types and their
/// accumulators), and a call per chunk costs nothing at run time.
void for_each_chunk(std::uint64_t length,
                    const std::function<void(std::uint64_t, std::uint64_t)>& body) {
    std::vector<std::uint64_t> starts;
    for (std::uint64_t start = 0; start < length; start += chunk)
        starts.push_back(start);
    std::for_each(std::execution::par, starts.begin(), starts.end(),
                  [&](std::uint64_t start) { body(start, std::min(start + chunk, length)); });
}

/// The exponent of the lowest set bit of finite, nonzero x: x is an odd multiple of
/// 2^exponent. Read from the bits, as it runs once per value.
int lowest_bit_exponent(double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    const std::uint64_t significand = biased == 0 ? fraction : fraction | std::uint64_t{1} << 52;
    return (biased == 0 ? -1074 : biased - 1075) + __builtin_ctzll(significand);
}

/// A running sum that keeps the rounding error of each addition (Neumaier's variant of
/// Kahan's summation), and beside it the sum of the finite values' magnitudes and the
/// lowest bit any of them sets.
class CompensatedSum {
public:
    void add(double x) {
        accumulate(x);
        if (std::isfinite(x) && x != 0) {
            magnitude_ += std::abs(x);
            lowest_bit_ = std::min(lowest_bit_, lowest_bit_exponent(x));
        }
    }
    void add(const CompensatedSum& other) {
        accumulate(other.sum_);
        accumulate(other.error_);
        magnitude_ += other.magnitude_;
        lowest_bit_ = std::min(lowest_bit_, other.lowest_bit_);
    }
    double value() const { return sum_ + error_; }
    double magnitude() const { return magnitude_; }
    double grain() const {
        return lowest_bit_ == no_bit ? std::numeric_limits<double>::infinity()
                                     : std::ldexp(1.0, lowest_bit_);
    }

private:
    void accumulate(double x) {
        const double total = sum_ + x;
        // Past a NaN or an infinity the sum is what IEEE addition makes it, and the error
        // term, inf - inf there, would turn an infinite sum into NaN.
        if (std::isfinite(total))
            error_ += std::abs(sum_) >= std::abs(x) ? (sum_ - total) + x : (x - total) + sum_;
        sum_ = total;
    }

    static constexpr int no_bit = std::numeric_limits<int>::max();
    double sum_ = 0;
    double error_ = 0;
    double magnitude_ = 0;
    int lowest_bit_ = no_bit;
};

template <typename In, typename A>
Reference floating_sum(const std::vector<ValuesView>& spans, HostMap map) {
    std::vector<CompensatedSum> totals(spans.size());
    for (std::size_t s = 0; s < spans.size(); ++s) {
        const auto* values = static_cast<const In*>(spans[s].data);
        const auto length = spans[s].length;
        std::vector<CompensatedSum> chunks((length + chunk - 1) / chunk);
        for_each_chunk(length, [&](std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t i = begin; i < end; ++i)
                chunks[begin / chunk].add(static_cast<double>(to_accumulator<A>(values[i], map)));
        });
        for (const auto& part : chunks)
            totals[s].add(part);
    }
    CompensatedSum total;
    for (const auto& part : totals)
        total.add(part);
    // Unmapped float or double values summed in their own type: the exact sum rounded once.
    if constexpr (std::is_same_v<In, A> && (std::is_same_v<A, float> || std::is_same_v<A, double>))
        if (map == HostMap::none)
            return {exact_host_sum(std::is_same_v<A, float> ? DataType::float32 : DataType::float64,
                                   spans),
                    {},
                    total.magnitude(),
                    total.grain()};
    return {static_cast<A>(total.value()), {}, total.magnitude(), total.grain()};
}

/// argmin or argmax of values of In, mapped to A: the pair of each chunk, then of them all, the
/// spans' indices following on from one another.
template <typename In, typename A>
Reference indexed_reduce(Op op, const std::vector<ValuesView>& spans, HostMap map) {
    auto result = indexed_identity<A>(op);
    std::uint64_t start = 0;
    for (const auto& span : spans) {
        const auto* values = static_cast<const In*>(span.data);
        std::vector<IndexedValue<A>> chunks((span.length + chunk - 1) / chunk);
        for_each_chunk(span.length, [&](std::uint64_t begin, std::uint64_t end) {
            auto& pair = chunks[begin / chunk];
            pair = indexed_identity<A>(op);
            for (std::uint64_t i = begin; i < end; ++i)
                pair = combine_indexed<A>(
                    op, pair,
                    {to_accumulator<A>(values[i], map), static_cast<std::int64_t>(start + i)});
        });
        for (const auto& pair : chunks)
            result = combine_indexed(op, result, pair);
        start += span.length;
    }
    Reference reference{result.value, {}};
    reference.index = result.index;
    return reference;
}

/// Values of In reduced in the accumulator A.
template <typename In, typename A>
Reference reduce_spans(Op op, const std::vector<ValuesView>& spans, HostMap user_map) {
    const auto map = map_of(op, user_map);
    if constexpr (std::is_floating_point_v<A>)
        if (op == Op::sum)
            return floating_sum<In, A>(spans, map);
    if (info(op).indexed)
        return indexed_reduce<In, A>(op, spans, map);
    A result = identity_of<A>(op);
    for (const auto& span : spans) {
        const auto* values = static_cast<const In*>(span.data);
        std::vector<A> chunks((span.length + chunk - 1) / chunk, identity_of<A>(op));
        for_each_chunk(span.length, [&](std::uint64_t begin, std::uint64_t end) {
            A part = identity_of<A>(op);
            for (std::uint64_t i = begin; i < end; ++i)
                part = combine(op, part, to_accumulator<A>(values[i], map));
            chunks[begin / chunk] = part;
        });
        for (const auto& part : chunks)
            result = combine(op, result, part);
    }
    return {result, {}};
}

} // namespace

void fill_random(DataType type, Op op, void* data, std::uint64_t first, std::uint64_t length,
                 std::uint64_t seed) {
    visit_type(type, [&](auto zero) {
        using T = decltype(zero);
        auto* values = static_cast<T*>(data);
        const std::uint64_t key = scramble(seed);
        for_each_chunk(length, [&](std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t i = begin; i < end; ++i)
                values[i] = from_random_bits<T>(scramble(key + first + i), op);
        });
    });
}

HostValues random_values(DataType type, Op op, std::uint64_t length, std::uint64_t seed) {
    return visit_type(type, [&](auto zero) -> HostValues {
        std::vector<decltype(zero)> values(length);
        fill_random(type, op, values.data(), 0, length, seed);
        return values;
    });
}

Reference host_reduce(Op op, const ValuesView& values, std::uint64_t length,
                      std::optional<DataType> accumulate, HostMap map) {
    return host_reduce(op, values.type, {values.part(0, length)}, accumulate, map);
}

Reference host_reduce(Op op, const HostValues& values, std::uint64_t length,
                      std::optional<DataType> accumulate, HostMap map) {
    return host_reduce(op, ValuesView(values), length, accumulate, map);
}

Reference host_reduce(Op op, DataType type, const std::vector<ValuesView>& spans,
                      std::optional<DataType> accumulate, HostMap map) {
    if (op == Op::custom)
        throw Error(Errc::invalid_argument, "a user's op has no host reference");
    auto reference = visit_type(type, [&](auto value) {
        return visit_accumulator(accumulator_for(type, op, accumulate), [&](auto accumulator) {
            return reduce_spans<decltype(value), decltype(accumulator)>(op, spans, map);
        });
    });
    reference.method = host_reduce_method(op, type, accumulate, map);
    return reference;
}

std::string host_reduce_method(Op op, DataType type, std::optional<DataType> accumulate,
                               HostMap map) {
#if defined(_GLIBCXX_USE_TBB_PAR_BACKEND) && _GLIBCXX_USE_TBB_PAR_BACKEND
    const std::string backend = "TBB backend";
#else
    const std::string backend = "no parallel backend: sequential";
#endif
    const auto accumulator = accumulator_for(type, op, accumulate);
    if (op == Op::sum && accumulator == type && exact_sums(type) && map == HostMap::none)
        return "exact sum rounded once (Shewchuk's expansions in double, a chunk per thread)";
    if (info(accumulator).floating() && op == Op::sum)
        return "compensated (Neumaier) sum in double, chunks of " + std::to_string(chunk) +
               " under std::for_each(par), " + backend;
    if (info(op).indexed)
        return "the first extreme of chunks under std::for_each(par), " + backend;
    return "chunks of " + std::to_string(chunk) + " under std::for_each(par), " + backend;
}

bool same_value(const Scalar& a, const Scalar& b) {
    return std::visit(
        [&](auto x) {
            const auto y = std::get<decltype(x)>(b);
            if constexpr (std::is_floating_point_v<decltype(x)>)
                if (std::isnan(x) && std::isnan(y))
                    return true;
            return x == y;
        },
        a);
}

namespace {

/// host_reduce() of one segment of `length` values; argmin and argmax give an empty one
/// no_index.
Reference segment_reference(Op op, const ValuesView& segment, std::uint64_t length,
                            std::optional<DataType> accumulate, HostMap map) {
    auto reference = host_reduce(op, segment, length, accumulate, map);
    if (reference.index && length == 0)
        reference.index = no_index;
    return reference;
}

} // namespace

std::vector<Reference> host_reduce_segments(Op op, const ValuesView& values,
                                            const std::vector<std::uint64_t>& offsets,
                                            std::optional<DataType> accumulate, HostMap map) {
    std::vector<Reference> references;
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
        const auto length = offsets[s + 1] - offsets[s];
        references.push_back(
            segment_reference(op, values.part(offsets[s], length), length, accumulate, map));
    }
    return references;
}

std::vector<Reference>
axis_references(const ValuesView& values, const Shape& shape, const std::vector<int>& axes,
                const std::function<Reference(const ValuesView& segment)>& reference_of) {
    const auto offsets = axis_offsets(shape, axes);
    std::vector<unsigned char> segment(offsets.reduced.size() * info(values.type).size);
    std::vector<Reference> references;
    for (std::size_t k = 0; k < offsets.results.size(); ++k) {
        gather_result(values, offsets, k, segment.data());
        references.push_back(reference_of(
            ValuesView(values.type, segment.data(), offsets.reduced.size(), values.origin)));
    }
    return references;
}

void gather_result(const ValuesView& values, const AxisOffsets& offsets, std::size_t k,
                   void* into) {
    const auto size = info(values.type).size;
    const auto* from = static_cast<const unsigned char*>(values.data) + offsets.results[k] * size;
    for (std::size_t r = 0; r < offsets.reduced.size(); ++r)
        std::memcpy(static_cast<unsigned char*>(into) + r * size, from + offsets.reduced[r] * size,
                    size);
}

std::vector<Reference> host_reduce_axes(Op op, const ValuesView& values, const Shape& shape,
                                        const std::vector<int>& axes,
                                        std::optional<DataType> accumulate, HostMap map) {
    return axis_references(values, shape, axes, [&](const ValuesView& segment) {
        return segment_reference(op, segment, segment.length, accumulate, map);
    });
}

std::vector<Reference> host_reduce_axes(Op op, const ValuesView& values, const AxisLayout& layout,
                                        std::optional<DataType> accumulate, HostMap map) {
    const Shape shape{{layout.blocks, layout.length, layout.inner}, Order::c};
    return host_reduce_axes(op, values, shape, {1}, accumulate, map);
}

} // namespace clreduce
