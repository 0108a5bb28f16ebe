// Kernel mutants, made by test/CMakeLists.txt: reduce.cl with one of the fold's named steps
// (REDUCE_TAIL_END, REDUCE_COMBINE_LANES, REDUCE_COMBINE_ACCUMULATORS and argmin's and
// argmax's REDUCE_COMBINE_ACCUMULATOR_PAIR, REDUCE_COMBINE_QUARTERS) redefined to lose the last
// tail value, one vector lane, one of the accumulators or the quarters of a load of 8 or 16
// values after its first. clreduce's validation of its own random
// input must fail every one of them on every device, path, type and op, and pass the kernel
// itself on the same inputs. The mutations are in the fold that both finishes share,
// so the test runs the passes, which every device has (a build per mutant is most of its
// time); the CLI tests run mutants with the last-group finish.

#include "catch_compat.hpp"
#include "clreduce/input.hpp"
#include "detail/measure.hpp"
#include "detail/plan.hpp"
#include "detail/source.hpp"
#include "device_targets.hpp"

#include <algorithm>
#include <limits>

using namespace clreduce;

namespace {

const char* const mutants[] = {"drop-tail-value", "drop-lane", "drop-accumulator", "drop-quarter"};

/// Whether `mutant` changes the kernel for `type`: a load of 4 values has no quarters to drop.
bool mutates(const std::string& mutant, DataType type) {
    return mutant != "drop-quarter" || info(type).values_per_load() > 4;
}

/// How many loads each of the fold's four accumulators takes an iteration of the first pass.
std::uint64_t loads_per_turn(const Reducer& reducer) {
    return loads_per_accumulator(reducer.type(), reducer.accumulator(), reducer.op());
}

/// Long enough that every work-item of the first pass fills all four accumulators' lanes,
/// with a tail of three values.
std::uint64_t telling_length(const Reducer& reducer) {
    const auto& shape = reducer.shape();
    const std::uint64_t most_items = std::uint64_t{shape.max_work_groups} * shape.work_group_size;
    const std::uint64_t iteration =
        4 * loads_per_turn(reducer) * info(reducer.type()).values_per_load();
    return std::max<std::uint64_t>(std::uint64_t{1} << 20, iteration * most_items) + 3;
}

/// Where a lost value hides the extreme of a min or max: the last tail value, the first
/// vector's last lane, a load's last quarter (value 12: a load of 8 or 16 values), and the
/// fourth accumulator's first vector with the contiguous (CPU) and the strided (GPU) layout.
std::vector<std::uint64_t> hiding_places(const Reducer& reducer, std::uint64_t length) {
    const auto first = reducer.plan(length).front();
    const std::uint64_t items = std::uint64_t{first.work_groups} * first.work_group_size;
    const std::uint64_t fourth =
        3 * loads_per_turn(reducer) * info(reducer.type()).values_per_load();
    if (fourth == 12)
        return {length - 1, 3, 12, 12 * items};
    return {length - 1, 3, 12, fourth, fourth * items};
}

/// clreduce's random input for the reducer's type and op; for min and max (argmin and argmax),
/// one copy per hiding place with the extreme planted there, the only one: random bytes and
/// shorts hold the extreme too, which is moved one step inwards.
std::vector<HostValues> telling_inputs(const Reducer& reducer, std::uint64_t length) {
    const auto drawn = random_values(reducer.type(), reducer.op(), length, 1);
    if (reducer.op() == Op::sum || reducer.op() == Op::prod) // every value counts (odd factors)
        return {drawn};
    std::vector<HostValues> inputs;
    for (const auto place : hiding_places(reducer, length)) {
        auto planted = drawn;
        std::visit(
            [&](auto& values) {
                using T = typename std::decay_t<decltype(values)>::value_type;
                const bool least = reducer.op() == Op::min || reducer.op() == Op::argmin;
                const T extreme =
                    least ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
                if constexpr (std::is_integral_v<T>)
                    std::replace(values.begin(), values.end(), extreme,
                                 static_cast<T>(least ? extreme + 1 : extreme - 1));
                values.at(place) = extreme;
            },
            planted);
        inputs.push_back(std::move(planted));
    }
    return inputs;
}

/// Whether clreduce's validation of its own draw passes `reducer`'s result for `values`.
bool validates(Reducer& reducer, const DeviceQueue& queue, const HostValues& values) {
    const auto length = length_of(values);
    const DeviceInput input(queue.context, queue.queue, values, length);
    return measure(reducer, queue, input, values, length, {1, false}, nullptr).valid();
}

} // namespace

TEST_CASE("validation fails a kernel that loses a value, a lane, an accumulator or a quarter",
          "[device][mutants]") {
    // argmin's and argmax's pairs and their struct lanes too, on two types whose random
    // values leave the planted extreme the only one (combinations_and_wide_loads() has the
    // narrow types' min, whose loads combine before their map).
    const auto indexed = [](const Recipe& recipe) {
        return info(recipe.op).indexed &&
               (recipe.type == DataType::int32 || recipe.type == DataType::float32);
    };
    auto mutated_combinations = combinations_and_wide_loads();
    for (const auto& combination : every_op_and_type())
        if (indexed(combination.recipe))
            mutated_combinations.push_back(combination);
    for (const auto& combination : mutated_combinations) {
        if (combination.recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const auto length = telling_length(*reducer);
            const auto inputs = telling_inputs(*reducer, length);
            INFO("length " << length);
            CHECK(std::all_of(inputs.begin(), inputs.end(), [&](const HostValues& values) {
                return validates(*reducer, target.queue, values);
            }));
            for (const auto* mutant : mutants) {
                if (!mutates(mutant, combination.recipe.type))
                    continue;
                INFO("mutant " << mutant);
                Reducer mutated(target.queue.context, target.queue.device, combination.recipe,
                                read_kernel_file("reduce.cl", {CLREDUCE_TEST_MUTANT_DIR "/" +
                                                               std::string(mutant)}));
                CHECK(std::any_of(inputs.begin(), inputs.end(), [&](const HostValues& values) {
                    return !validates(mutated, target.queue, values);
                }));
            }
        }
    }
}
