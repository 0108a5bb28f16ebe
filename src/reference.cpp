#include "clreduce/reference.hpp"

#include "clreduce/exact.hpp"

#include <cstring>
#include <execution>
#include <numeric>
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
/// the plain conversion of out-of-range values implementation-defined), or for floating
/// point a small integer for a sum and else a float in [-1, 1) from as many bits as its
/// significand holds.
template <typename T>
T from_random_bits(std::uint64_t bits, Op op) {
    if constexpr (std::is_floating_point_v<T>) {
        if (op == Op::sum)
            return small_nonzero_integer<T>(bits);
        constexpr int digits = std::numeric_limits<T>::digits;
        const auto scaled = static_cast<T>(bits >> (64 - digits - 1)); // [0, 2^(digits+1))
        return scaled / static_cast<T>(std::uint64_t{1} << digits) - T{1};
    } else {
        T value;
        const auto high = bits >> (64 - 8 * sizeof(T)); // the best-mixed bits
        std::memcpy(&value, &high, sizeof value);
        return value;
    }
}

// Small enough that a million values keep every core busy.
constexpr std::uint64_t chunk = std::uint64_t{1} << 16;

/// Calls `body(begin, end)` for each chunk of [0, length), in parallel.
template <typename Body>
void for_each_chunk(std::uint64_t length, Body body) {
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

/// The sum of the finite values' magnitudes and the lowest bit any of them sets: what the
/// check of a plain floating-point sum needs to know of the values.
class Magnitudes {
public:
    void add(double x) {
        if (std::isfinite(x) && x != 0) {
            magnitude_ += std::abs(x);
            lowest_bit_ = std::min(lowest_bit_, lowest_bit_exponent(x));
        }
    }
    void add(const Magnitudes& other) {
        magnitude_ += other.magnitude_;
        lowest_bit_ = std::min(lowest_bit_, other.lowest_bit_);
    }
    double magnitude() const { return magnitude_; }
    double grain() const {
        return lowest_bit_ == no_bit ? std::numeric_limits<double>::infinity()
                                     : std::ldexp(1.0, lowest_bit_);
    }

private:
    static constexpr int no_bit = std::numeric_limits<int>::max();
    double magnitude_ = 0;
    int lowest_bit_ = no_bit;
};

template <typename T>
Reference floating_sum(const std::vector<ValuesView>& spans) {
    std::vector<Magnitudes> totals(spans.size());
    for (std::size_t s = 0; s < spans.size(); ++s) {
        const auto* values = static_cast<const T*>(spans[s].data);
        const auto length = spans[s].length;
        std::vector<Magnitudes> chunks((length + chunk - 1) / chunk);
        for_each_chunk(length, [&](std::uint64_t begin, std::uint64_t end) {
            for (std::uint64_t i = begin; i < end; ++i)
                chunks[begin / chunk].add(static_cast<double>(values[i]));
        });
        for (const auto& part : chunks)
            totals[s].add(part);
    }
    Magnitudes total;
    for (const auto& part : totals)
        total.add(part);
    const auto type = std::is_same_v<T, float> ? DataType::float32 : DataType::float64;
    return {exact_host_sum(type, spans), {}, total.magnitude(), total.grain()};
}

template <typename T>
Reference reduce_spans(Op op, const std::vector<ValuesView>& spans) {
    if constexpr (std::is_floating_point_v<T>)
        if (op == Op::sum)
            return floating_sum<T>(spans);
    T result = identity_of<T>(op);
    for (const auto& span : spans) {
        const auto* values = static_cast<const T*>(span.data);
        result =
            combine(op, result,
                    std::reduce(std::execution::par_unseq, values, values + span.length,
                                identity_of<T>(op), [op](T a, T b) { return combine(op, a, b); }));
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

Reference host_reduce(Op op, const ValuesView& values, std::uint64_t length) {
    return host_reduce(op, values.type, {values.part(0, length)});
}

Reference host_reduce(Op op, const HostValues& values, std::uint64_t length) {
    return host_reduce(op, ValuesView(values), length);
}

Reference host_reduce(Op op, DataType type, const std::vector<ValuesView>& spans) {
    auto reference =
        visit_type(type, [&](auto zero) { return reduce_spans<decltype(zero)>(op, spans); });
    reference.method = host_reduce_method(op, type);
    return reference;
}

std::string host_reduce_method(Op op, DataType type) {
#if defined(_GLIBCXX_USE_TBB_PAR_BACKEND) && _GLIBCXX_USE_TBB_PAR_BACKEND
    const std::string backend = "TBB backend";
#else
    const std::string backend = "no parallel backend: sequential";
#endif
    if (info(type).floating() && op == Op::sum)
        return "exact sum rounded once (Shewchuk's expansions in double, a chunk per "
               "thread)";
    return "std::reduce(par_unseq), " + backend;
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

} // namespace clreduce
