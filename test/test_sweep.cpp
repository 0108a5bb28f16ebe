// The randomised sweep: hundreds of lengths per type and op on every device and path, drawn
// from a fixed seed, plus every length near a pass boundary. One program and one input per
// reducer; each length reduces a prefix of that input.

#include "catch_compat.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <type_traits>

using namespace clreduce;

namespace {

constexpr std::uint64_t longest = std::uint64_t{1} << 22;

/// The last lengths before the number of passes steps up (it never steps down).
std::vector<std::uint64_t> pass_count_steps(const Reducer& reducer) {
    std::vector<std::uint64_t> steps;
    std::uint64_t low = 1;
    while (reducer.plan(low).size() < reducer.plan(longest).size()) {
        const auto passes = reducer.plan(low).size();
        std::uint64_t high = longest; // invariant: plan(low) has `passes`, plan(high) more
        while (high - low > 1) {
            const auto middle = low + (high - low) / 2;
            (reducer.plan(middle).size() > passes ? high : low) = middle;
        }
        steps.push_back(low);
        low = high;
    }
    return steps;
}

/// `count` log-uniform lengths in 1 ... 2^22, and every length within 2 of a pass boundary:
/// where the pass count steps up, and where the first pass gains a work-group.
std::vector<std::uint64_t> sweep_lengths_for(const Reducer& reducer, int count,
                                             std::mt19937_64& random) {
    std::set<std::uint64_t> lengths;
    std::uniform_real_distribution<double> exponent(0.0, 22.0);
    while (lengths.size() < static_cast<std::size_t>(count))
        lengths.insert(static_cast<std::uint64_t>(std::exp2(exponent(random))));

    auto boundaries = pass_count_steps(reducer);
    const auto per_work_group = reducer.shape().values_per_work_group();
    for (const std::uint64_t work_groups : {1, 2, 3})
        boundaries.push_back(work_groups * per_work_group);
    if (reducer.shape().max_work_groups != 0)
        boundaries.push_back(reducer.shape().max_work_groups * per_work_group);
    for (const auto boundary : boundaries)
        for (std::uint64_t length = boundary < 3 ? 1 : boundary - 2; length <= boundary + 2;
             ++length)
            if (length <= longest)
                lengths.insert(length);
    return {lengths.begin(), lengths.end()};
}

/// Whether T is one of the six types combinations() reduces (the sweep's input).
template <typename T>
constexpr bool is_accumulator = std::is_arithmetic_v<T> && sizeof(T) >= 4;

/// A value in a narrow band at the `top` (or the bottom) of T's range, from random `value`.
template <typename T>
T in_band(T value, bool top) {
    if constexpr (std::is_floating_point_v<T>) {
        const T offset = T{0.5} + std::abs(value) / 2; // [0.5, 1)
        return top ? offset : -offset;
    } else {
        const T offset = static_cast<T>(static_cast<std::make_unsigned_t<T>>(value) & 0xfffff);
        return top ? std::numeric_limits<T>::max() - offset
                   : static_cast<T>(std::numeric_limits<T>::lowest() + offset);
    }
}

/// For an integer sum, values over the whole range, so that prefixes overflow, with both
/// extremes sprinkled in; for a floating-point sum, random_values' small integers. For min,
/// values in a band at the top of the range with the type's largest value sprinkled in, so
/// that a lone lowest value planted by the test is the only way to reach the bottom; for max
/// the mirror image.
HostValues sweep_input(DataType type, Op op) {
    auto values = random_values(type, op, longest, 20261123);
    std::visit(
        [&](auto& vector) {
            using T = typename std::decay_t<decltype(vector)>::value_type;
            if constexpr (is_accumulator<T>) {
                const T lowest = std::numeric_limits<T>::lowest();
                const T highest = std::numeric_limits<T>::max();
                for (std::size_t i = 0; i < vector.size(); ++i) {
                    if (op == Op::sum) {
                        if (std::is_integral_v<T> && i % 7 == 0)
                            vector[i] = i % 2 == 1 ? lowest : highest;
                        continue;
                    }
                    vector[i] = i % 7 == 0 ? (op == Op::min ? highest : lowest)
                                           : in_band(vector[i], op == Op::min);
                }
            }
        },
        values);
    return values;
}

/// The value planted to be found: the lowest for min, the highest for max.
Scalar planted(DataType type, Op op) {
    return visit_accumulator(type, [&](auto zero) -> Scalar {
        using T = decltype(zero);
        return op == Op::min ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    });
}

/// The value at `index`, as a Scalar.
Scalar value_at(const HostValues& values, std::uint64_t index) {
    return std::visit(
        [&](const auto& vector) -> Scalar {
            if constexpr (is_accumulator<typename std::decay_t<decltype(vector)>::value_type>)
                return vector[index];
            else
                throw std::logic_error("the sweep reduces the six accumulator types only");
        },
        values);
}

/// Sets the value at `index` on the host and on the device.
void set_value(HostValues& values, const DeviceQueue& queue, const cl::Buffer& buffer,
               std::uint64_t index, const Scalar& value) {
    std::visit(
        [&](auto& vector) {
            using T = typename std::decay_t<decltype(vector)>::value_type;
            if constexpr (is_accumulator<T>)
                vector[index] = std::get<T>(value);
        },
        values);
    write_value(queue, buffer, index, value);
}

} // namespace

TEST_CASE("a randomised sweep of lengths matches the host reference", "[device][sweep]") {
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto type = combination.recipe.type;
            const auto op = combination.recipe.op;
            auto values = sweep_input(type, op);
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            std::mt19937_64 random(2026);
            // Every length for the type the sweep began with; fewer for the others.
            const int count = type == DataType::int32 ? 500 : 100;
            const auto lengths = sweep_lengths_for(*reducer, count, random);
            CHECK(lengths.size() >= static_cast<std::size_t>(count));
            const auto input = upload(target.queue, values);
            int mismatches = 0;
            for (const auto length : lengths) {
                // Half of the min and max checks hide a lone extreme at a random index:
                // finding it proves that index was read.
                const bool plant = op != Op::sum && random() % 2 == 0;
                const auto index = random() % length;
                const auto saved = value_at(values, index);
                if (plant)
                    set_value(values, target.queue, input, index, planted(type, op));
                const auto device = reducer->reduce(target.queue.queue, input, 0, length);
                const auto expected = host_reduce(op, values, length).value;
                if (device != expected && ++mismatches <= 10)
                    FAIL_CHECK("length " << length << ": device " << to_string(device) << ", host "
                                         << to_string(expected));
                if (plant)
                    set_value(values, target.queue, input, index, saved);
            }
            INFO(lengths.size() << " lengths");
            CHECK(mismatches == 0);
        }
}
