#include "clreduce/reference.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <execution>
#include <numeric>

namespace clreduce {
namespace {

/// SplitMix64's finaliser: a bijection of 64-bit words that scatters neighbouring inputs.
std::uint64_t scramble(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/// The int32 with the same bits (C++17 leaves the plain conversion implementation-defined).
cl_int same_bits(std::uint32_t bits) {
    cl_int value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

std::uint32_t wrapping_add(std::uint32_t a, std::uint32_t b) {
    return a + b;
}

} // namespace

std::vector<cl_int> random_values(std::uint64_t length, std::uint64_t seed) {
    std::vector<cl_int> values(length);
    constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
    std::vector<std::uint64_t> chunk_starts;
    for (std::uint64_t start = 0; start < length; start += chunk)
        chunk_starts.push_back(start);
    const std::uint64_t key = scramble(seed);
    std::for_each(
        std::execution::par, chunk_starts.begin(), chunk_starts.end(), [&](std::uint64_t start) {
            const std::uint64_t end = std::min(start + chunk, length);
            for (std::uint64_t i = start; i < end; ++i)
                values[i] = same_bits(static_cast<std::uint32_t>(scramble(key + i) >> 32));
        });
    return values;
}

cl_int combine(Op op, cl_int a, cl_int b) {
    if (op == Op::min)
        return std::min(a, b);
    return same_bits(wrapping_add(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)));
}

cl_int host_reduce(Op op, const cl_int* values, std::uint64_t length) {
    const auto end = values + length;
    if (op == Op::min)
        return std::reduce(std::execution::par_unseq, values, end, cl_int{INT_MAX},
                           [](cl_int a, cl_int b) { return std::min(a, b); });
    // Unsigned arithmetic wraps around by definition, where signed overflow is undefined.
    const auto sum =
        std::reduce(std::execution::par_unseq, values, end, std::uint32_t{0}, [](auto a, auto b) {
            return wrapping_add(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
        });
    return same_bits(sum);
}

std::string host_reduce_description() {
#if defined(_GLIBCXX_USE_TBB_PAR_BACKEND) && _GLIBCXX_USE_TBB_PAR_BACKEND
    return "std::reduce(par_unseq), TBB backend";
#else
    return "std::reduce(par_unseq), no parallel backend: sequential";
#endif
}

} // namespace clreduce
