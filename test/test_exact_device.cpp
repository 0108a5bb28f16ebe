// ExactSum as another OpenCL program calls it: ranges of the caller's buffer at any offset,
// and an input in pieces, each giving the bits of the host's exact sum; the rows of a split
// input adding up to the whole's. The CLI test check_exact.py covers the adversarial inputs.

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/exact.hpp"
#include "device_targets.hpp"

#include <random>
#include <type_traits>

using namespace clreduce;

namespace {

/// `value` rounded to the host type T.
template <typename T>
T held_as(double value) {
    if constexpr (std::is_same_v<T, Half>)
        return to_half(static_cast<float>(value));
    else if constexpr (std::is_same_v<T, BFloat16>)
        return to_bfloat16(static_cast<float>(value));
    else
        return static_cast<T>(value);
}

/// Values with cancellation at every magnitude from 2^-`scale` to 2^`scale`: random
/// mantissas and exponents, each value followed by its negation a third of the time.
template <typename T>
std::vector<T> cancelling_values(std::size_t count, int scale) {
    std::mt19937_64 random(22);
    std::uniform_int_distribution<int> exponent(-scale, scale);
    std::uniform_real_distribution<double> mantissa(-1, 1);
    std::vector<T> values;
    while (values.size() < count) {
        const double value = std::ldexp(mantissa(random), exponent(random));
        values.push_back(held_as<T>(value));
        if (random() % 3 == 0 && values.size() < count)
            values.push_back(held_as<T>(-value));
    }
    return values;
}

/// `scale` 60 for float and double; 16 for float16, whose largest value is 65504 and whose
/// subnormals are below 2^-14.
template <typename T>
void check_exact_sums(const DeviceUnderTest& target, DataType type, int scale = 60) {
    const auto& queue = target.queue.queue;
    const auto values = cancelling_values<T>(300007, scale);
    const HostValues held = values;
    const ValuesView view(held);
    const auto buffer = upload(target.queue, held);
    ExactSum exact_sum(target.queue.context, target.queue.device, type);
    for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {0, 1}, {1, 2}, {3, 255}, {5, 257}, {0, 300007}, {7, 300000}}) {
        INFO(name_of(type) << " values " << first << " to " << first + count);
        CHECK(same_bits(exact_sum.reduce(queue, buffer, first, count),
                        exact_host_sum(view.part(first, count))));
    }
    // Three pieces of one buffer, and the rows of two halves, give the whole's bits.
    const auto whole = exact_sum.accumulate(queue, {{buffer, 300007, 0}});
    const auto pieces = exact_sum.accumulate(
        queue, {{buffer, 1000, 0}, {buffer, 200000, 1000}, {buffer, 99007, 201000}});
    CHECK(pieces.row() == whole.row());
    auto halves = exact_sum.accumulate(queue, {{buffer, 150000, 0}});
    halves.add(exact_sum.accumulate(queue, {{buffer, 150007, 150000}}));
    CHECK(halves.row() == whole.row());
}

} // namespace

TEST_CASE("the exact sum of any range or pieces has the host's exact bits", "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!missing_type_support(target.report, DataType::float64).empty() ||
            !missing_type_support(target.report, DataType::int64).empty() ||
            !target.report.has_extension("cl_khr_int64_base_atomics")) {
            CHECK_THROWS_AS(ExactSum(target.queue.context, target.queue.device, DataType::float32),
                            Error);
            continue;
        }
        check_exact_sums<cl_float>(target, DataType::float32);
        check_exact_sums<cl_double>(target, DataType::float64);
        check_exact_sums<Half>(target, DataType::float16, 16);
        check_exact_sums<BFloat16>(target, DataType::bfloat16);
    }
}

TEST_CASE("an exact sum of integers is refused", "[api][exact]") {
    for (auto& target : devices_under_test()) {
        try {
            ExactSum(target.queue.context, target.queue.device, DataType::int32);
            FAIL("an ExactSum of int32 was built");
        } catch (const Error& error) {
            CHECK(error.cause() == Errc::unsupported);
        }
    }
}
