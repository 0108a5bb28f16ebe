// The randomised sweep: hundreds of lengths per op on every device and path, drawn from a
// fixed seed, plus every length near a pass boundary. One program and one input per
// reducer; each length reduces a prefix of that input.

#include "catch_compat.hpp"
#include "clreduce/reference.hpp"
#include "device_targets.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <set>

using namespace clreduce;

namespace {

constexpr std::uint64_t longest = std::uint64_t{1} << 22;
constexpr int random_lengths = 500;

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

/// 500 log-uniform lengths in 1 ... 2^22, and every length within 2 of a pass boundary:
/// where the pass count steps up, and where the first pass gains a work-group.
std::vector<std::uint64_t> sweep_lengths_for(const Reducer& reducer, std::mt19937_64& random) {
    std::set<std::uint64_t> lengths;
    std::uniform_real_distribution<double> exponent(0.0, 22.0);
    while (lengths.size() < random_lengths)
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

/// For the sum, values over the whole range, so that prefixes overflow, with both extremes
/// sprinkled in. For min, values in a band just under INT_MAX with INT_MAX sprinkled in, so
/// that a lone INT_MIN planted by the test is the only way to reach the bottom.
std::vector<cl_int> sweep_input(Op op) {
    auto values = random_values(longest, 20261123);
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (op == Op::min)
            values[i] = INT_MAX - (values[i] & 0xfffff);
        if (i % 7 == 0)
            values[i] = op == Op::sum && i % 2 == 1 ? INT_MIN : INT_MAX;
    }
    return values;
}

void write_value(const DeviceQueue& queue, const cl::Buffer& buffer, std::uint64_t index,
                 cl_int value) {
    queue.queue.enqueueWriteBuffer(buffer, CL_TRUE, index * sizeof(cl_int), sizeof value, &value);
}

} // namespace

TEST_CASE("a randomised sweep of lengths matches the host reference", "[device][sweep]") {
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto op = combination.recipe.op;
            auto values = sweep_input(op);
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            std::mt19937_64 random(2026);
            const auto lengths = sweep_lengths_for(*reducer, random);
            CHECK(lengths.size() >= random_lengths);
            const auto input = upload(target.queue, values);
            int mismatches = 0;
            for (const auto length : lengths) {
                // Half of the min checks hide a lone INT_MIN at a random index: finding it
                // proves that index was read.
                const bool plant = op == Op::min && random() % 2 == 0;
                const auto index = random() % length;
                const auto saved = values[index];
                if (plant) {
                    values[index] = INT_MIN;
                    write_value(target.queue, input, index, INT_MIN);
                }
                const auto device = reducer->reduce(input, length).value;
                const auto expected = host_reduce(op, values.data(), length);
                if (device != expected && ++mismatches <= 10)
                    FAIL_CHECK("length " << length << ": device " << device << ", host "
                                         << expected);
                if (plant) {
                    values[index] = saved;
                    write_value(target.queue, input, index, saved);
                }
            }
            INFO(lengths.size() << " lengths");
            CHECK(mismatches == 0);
        }
}
