// Device tests of argmin and argmax: NumPy's first index of the extreme, with the value, on
// every type, path, finish and telling length, with ties, NaN, infinities and signed zeros,
// with the input in several buffers or streamed from host memory, whose indices follow on,
// and with the first pass's segments short enough that short inputs span many.

#include "catch_compat.hpp"
#include "clreduce/input.hpp"
#include "clreduce/stream.hpp"
#include "detail/measure.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "detail/source.hpp"
#include "device_targets.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace clreduce;

namespace {

/// `length` values of `type` from `value(i)` (a double), converted as NumPy's astype would.
template <typename Value>
HostValues values_of(DataType type, std::uint64_t length, Value value) {
    return visit_type(type, [&](auto zero) -> HostValues {
        using T = decltype(zero);
        std::vector<T> values;
        for (std::uint64_t i = 0; i < length; ++i) {
            const double x = value(i);
            if constexpr (std::is_same_v<T, Half>)
                values.push_back(to_half(static_cast<float>(x)));
            else if constexpr (std::is_same_v<T, BFloat16>)
                values.push_back(to_bfloat16(static_cast<float>(x)));
            else if constexpr (std::is_same_v<T, Boolean>)
                values.push_back({static_cast<std::uint8_t>(x != 0)});
            else
                values.push_back(static_cast<T>(x));
        }
        return values;
    });
}

/// Few distinct values (0 to 4), so that each extreme repeats all over: only the first index
/// is right.
HostValues tied_values(DataType type, std::uint64_t length) {
    return values_of(type, length, [](std::uint64_t i) { return double((i * 7919 + 3) % 5); });
}

/// `length` copies of the value of argmax's identity (the type's least, -inf) or argmin's
/// (the greatest, +inf), each tying with the identity: only the first index is right.
HostValues identity_values(DataType type, Op op, std::uint64_t length) {
    const bool max = op == Op::argmax;
    return visit_type(type, [&](auto zero) -> HostValues {
        using T = decltype(zero);
        if constexpr (std::is_integral_v<T>)
            return std::vector<T>(length, max ? std::numeric_limits<T>::lowest()
                                              : std::numeric_limits<T>::max());
        const double inf = std::numeric_limits<double>::infinity();
        return values_of(type, length, [&](std::uint64_t) { return max ? -inf : inf; });
    });
}

/// `length` losers (argmax's 0, argmin's 1) but winners at `places`, the extremes.
HostValues winners_at(DataType type, Op op, std::uint64_t length,
                      const std::vector<std::uint64_t>& places) {
    const double winner = op == Op::argmax ? 1 : 0;
    return values_of(type, length, [&](std::uint64_t i) {
        const bool wins = std::find(places.begin(), places.end(), i) != places.end();
        return wins ? winner : 1 - winner;
    });
}

/// `length` losers but one winner at `place`, the only extreme.
HostValues lone_winner(DataType type, Op op, std::uint64_t length, std::uint64_t place) {
    return winners_at(type, op, length, {place});
}

/// The device's result equals the host reference's, value and index.
void check_same(const Reduction& device, const Reference& host) {
    INFO("device " << to_string(device.value) << " at " << device.index.value_or(-1) << ", host "
                   << to_string(host.value) << " at " << host.index.value_or(-1));
    REQUIRE(device.index.has_value());
    CHECK(device.index == host.index);
    CHECK(same_value(device.value, host.value));
}

/// The reducer's result equals the host reference's on each of `inputs` at each telling
/// length, from the first value and from the fourth.
void check_telling_lengths(Reducer& reducer, const DeviceUnderTest& target,
                           const std::vector<HostValues>& inputs) {
    const auto lengths = telling_lengths(reducer);
    for (const auto& values : inputs) {
        const auto input = upload(target.queue, values);
        for (const auto length : lengths)
            // From an odd first value too: the index counts from `first`.
            for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{3}}) {
                if (first >= length)
                    continue;
                const auto count = length - first;
                INFO("values " << first << " + " << count);
                check_same(reducer.reduce_timed(target.queue.queue, {{input, count, first}}),
                           host_reduce(reducer.op(), ValuesView(values).part(first, count), count));
            }
    }
}

/// The recipe's result equals the host reference's at each telling length, on random values
/// and on values whose extremes tie all over.
void check_random_and_tied(const DeviceUnderTest& target, const Recipe& recipe) {
    const auto reducer = make_reducer(target, recipe);
    REQUIRE(reducer);
    const auto lengths = telling_lengths(*reducer);
    const auto longest = *std::max_element(lengths.begin(), lengths.end());
    check_telling_lengths(
        *reducer, target,
        {random_values(recipe.type, recipe.op, longest, 2029), tied_values(recipe.type, longest)});
}

} // namespace

TEST_CASE("argmin and argmax give NumPy's first index on every type, path, finish and length",
          "[device][argops]") {
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        // The single launch on three types (bytes, halves, floats), as test_ops.cpp holds it.
        const bool last_group_type = recipe.type == DataType::int8 ||
                                     recipe.type == DataType::float16 ||
                                     recipe.type == DataType::float32;
        if (!info(recipe.op).indexed || (recipe.finish == Finish::last_group && !last_group_type))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            check_random_and_tied(*combination.target, recipe);
        }
    }
}

TEST_CASE(
    "argmin and argmax give the first index in work-groups the pairs' tree quarters and halves",
    "[device][argops]") {
    // reduce.cl's tree for pairs quarters the active work-items each step and halves them once
    // where the work-group size is not a power of 4: 2 only halves, 64 only quarters, 8 does
    // both; the last-group finish takes the tree twice. int32's and float's pairs take it as
    // 64-bit keys (REDUCE_KEYS), int64's as pairs.
    for (const auto& combination : every_op_and_type()) {
        auto recipe = combination.recipe;
        if (!info(recipe.op).indexed ||
            !(recipe.type == DataType::int32 || recipe.type == DataType::float32 ||
              recipe.type == DataType::int64))
            continue;
        for (const std::size_t work_group_size : {2, 8, 64}) {
            recipe.work_group_size = work_group_size;
            DYNAMIC_SECTION(combination.name() << ", work-group size " << work_group_size) {
                check_random_and_tied(*combination.target, recipe);
            }
        }
    }
}

TEST_CASE("argmin and argmax count indices from a piece's start, below 2^32 - 1 and past it",
          "[device][argops]") {
    // The first pass of int32, float and the 1- and 2-byte integers (whose values rank as
    // their 32-bit leads) takes 64-bit keys where every index of a launch is below 2^32 - 1
    // (reduce.cl's REDUCE_KEYS), and pairs, from another program, where one is not; int64's
    // always takes pairs. The starts put the last index just below that, at it, and every
    // index past it.
    const std::uint64_t length = 4099;
    const std::uint64_t last_keyed = std::numeric_limits<std::uint32_t>::max() - 1;
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (!info(recipe.op).indexed ||
            !(recipe.type == DataType::int32 || recipe.type == DataType::float32 ||
              recipe.type == DataType::int64 || recipe.type == DataType::int8 ||
              recipe.type == DataType::uint16))
            continue;
        for (const std::uint64_t start :
             {last_keyed + 1 - length, last_keyed + 2 - length, std::uint64_t{1} << 33}) {
            DYNAMIC_SECTION(combination.name() << ", start " << start) {
                const auto& target = *combination.target;
                const auto values = random_values(recipe.type, recipe.op, length, 2029);
                const auto input = upload(target.queue, values);
                const auto reducer = make_reducer(target, recipe);
                REQUIRE(reducer);
                const auto device =
                    reducer->reduce_timed(target.queue.queue, {{input, length, 0, start}});
                auto host = host_reduce(recipe.op, values, length);
                host.index = *host.index + static_cast<std::int64_t>(start);
                check_same(device, host);
            }
        }
    }
}

/// Every argmin and argmax with the passes' finish, of `types` (every type where empty), built
/// from `kernel`, at the telling lengths: random values, ties, the identity and a lone winner
/// at 1001, each the host's answer.
void check_with_kernel(const std::string& kernel, const std::vector<DataType>& types) {
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        const bool typed =
            types.empty() || std::find(types.begin(), types.end(), recipe.type) != types.end();
        if (!info(recipe.op).indexed || recipe.finish != Finish::passes || !typed)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            Reducer reducer(target.queue.context, target.queue.device, recipe, kernel);
            const auto lengths = telling_lengths(reducer);
            const auto longest = *std::max_element(lengths.begin(), lengths.end());
            check_telling_lengths(reducer, target,
                                  {random_values(recipe.type, recipe.op, longest, 2029),
                                   tied_values(recipe.type, longest),
                                   identity_values(recipe.type, recipe.op, longest),
                                   lone_winner(recipe.type, recipe.op, longest, 1001)});
        }
    }
}

TEST_CASE("argmin and argmax give the first index where a work-item's vectors span segments",
          "[device][argops]") {
    // The first pass's places are 32-bit within segments of 2^31 values (reduce.cl's
    // fold_segment). This kernel makes a segment 5 vectors, so that short inputs span many,
    // as inputs past 2^31 values do; bytes find their lead's byte in its segment. A lone
    // winner at 1001, past the first segments and not at a word's start, is found there:
    // random values' extremes may all lie in the first segment.
    check_with_kernel(
        read_kernel_file("reduce.cl", {CLREDUCE_TEST_KERNEL_VARIANTS_DIR "/short-segments"}),
        {DataType::int32, DataType::float32, DataType::int8});
}

TEST_CASE("argmin and argmax give the first index with GPUs' fold, leads as structs, on a CPU",
          "[device][argops]") {
    // A CPU's first pass keeps its leads as lanes (REDUCE_CONTIGUOUS); GPUs keep them as
    // structs and read strided across the launch. This kernel reads as GPUs do, so that their
    // fold runs here too.
    check_with_kernel(read_kernel_file("reduce.cl", {CLREDUCE_TEST_KERNEL_VARIANTS_DIR "/strided"}),
                      {});
}

TEST_CASE("argmin and argmax take the first NaN, the first infinity and either zero as NumPy",
          "[device][argops]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    struct Case {
        const char* what;
        double background; // every value but the planted ones
        std::vector<std::pair<std::uint64_t, double>> planted;
        Op op;
        std::int64_t numpy; // np.argmin's or np.argmax's answer
    };
    const std::vector<Case> cases = {
        {"two NaNs, argmax", 1, {{517, nan}, {519, nan}, {600, inf}}, Op::argmax, 517},
        {"two NaNs, argmin", 1, {{300, -inf}, {517, nan}, {519, nan}}, Op::argmin, 517},
        {"two infinities, argmax", 1, {{517, inf}, {519, inf}}, Op::argmax, 517},
        {"two infinities, argmin", 1, {{700, -inf}, {900, -inf}}, Op::argmin, 700},
        {"-0 after +0, argmin", 1, {{4, 0.0}, {5, -0.0}, {6, -0.0}}, Op::argmin, 4},
        {"-0 before +0, argmax", -1, {{1, -0.0}, {2, 0.0}, {3, 0.0}}, Op::argmax, 1},
        // Zeros far apart, which different work-items hold: the work-group step compares them.
        {"-0 far after +0, argmin", 1, {{4, 0.0}, {600, -0.0}, {900, -0.0}}, Op::argmin, 4},
        {"-0 far before +0, argmax", -1, {{1, -0.0}, {600, 0.0}, {900, 0.0}}, Op::argmax, 1},
        {"all equal, argmax", 1, {}, Op::argmax, 0},
        {"all equal, argmin", 1, {}, Op::argmin, 0},
        {"an extreme repeated", 1, {{333, 7}, {334, 7}, {1000, 7}}, Op::argmax, 333},
    };
    for (const auto& example : cases)
        for (const auto& combination : every_op_and_type()) {
            const auto& recipe = combination.recipe;
            if (recipe.op != example.op || !info(recipe.type).floating())
                continue;
            DYNAMIC_SECTION(combination.name() << ": " << example.what) {
                std::vector<double> doubles(1001, example.background);
                for (const auto& [at, value] : example.planted)
                    doubles[at] = value;
                const auto values = values_of(recipe.type, doubles.size(),
                                              [&](std::uint64_t i) { return doubles[i]; });
                const auto input = upload(combination.target->queue, values);
                const auto reducer = make_reducer(*combination.target, recipe);
                REQUIRE(reducer);
                const auto device = reducer->reduce_timed(combination.target->queue.queue,
                                                          {{input, doubles.size(), 0}});
                INFO("device index " << device.index.value_or(-1));
                CHECK(device.index == example.numpy);
                check_same(device, host_reduce(recipe.op, values, doubles.size()));
            }
        }
}

TEST_CASE("argmin and argmax give the first index where every value ties with the identity",
          "[device][argops]") {
    // Long enough that each work-item folds several vectors in its loop, whose in-order step
    // keeps a tie: the loop must start from values, not from the identity.
    const std::uint64_t length = 100003;
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (!info(recipe.op).indexed)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto values = identity_values(recipe.type, recipe.op, length);
            const auto input = upload(combination.target->queue, values);
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            const auto device =
                reducer->reduce_timed(combination.target->queue.queue, {{input, length, 0}});
            CHECK(device.index == 0);
            check_same(device, host_reduce(recipe.op, values, length));
        }
    }
}

TEST_CASE("argmin and argmax find a lone extreme in every lane and word of a load",
          "[device][argops]") {
    // Random and tied values hold their extreme in the first few places, so they would not
    // notice a fold that loses a lane, a quarter or (1-byte values' leads) a word of each load:
    // one winner among losers, in each of the first two loads' places (up to 16 values each),
    // in a load halfway and in the tail. The fold is the same for both finishes.
    const std::uint64_t length = 100003;
    std::vector<std::uint64_t> places = {length / 2, length / 2 + 15, length - 1};
    for (std::uint64_t place = 0; place < 32; ++place)
        places.push_back(place);
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (!info(recipe.op).indexed || recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            for (const auto place : places) {
                INFO("the winner at " << place);
                const auto values = lone_winner(recipe.type, recipe.op, length, place);
                const auto input = upload(combination.target->queue, values);
                const auto device =
                    reducer->reduce_timed(combination.target->queue.queue, {{input, length, 0}});
                CHECK(device.index == static_cast<std::int64_t>(place));
                check_same(device, host_reduce(recipe.op, values, length));
            }
        }
    }
}

TEST_CASE("argmin and argmax keep the first of equal extremes in a work-item's loads",
          "[device][argops]") {
    // Each of the first pass's two accumulators may take two loads a turn
    // (REDUCE_LOADS_PER_ACCUMULATOR), and must compare them in index order: equal winners in
    // the first work-item's vectors `first` to 11, all in one lane (a lane keeps a lead of its
    // own), and only the one in `first` is right. Its vectors follow on in the contiguous
    // (CPU) layout and lie `items` vectors apart in the strided (GPU) one; each layout has an
    // input of its own. Either accumulator comparing its two loads in turn the wrong way
    // round fails it.
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (!info(recipe.op).indexed || recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const std::uint64_t per_load = info(recipe.type).values_per_load();
            const auto& shape = reducer->shape();
            const std::uint64_t length =
                12 * per_load * shape.max_work_groups * shape.work_group_size + 3;
            const auto pass = reducer->plan(length).front();
            const std::uint64_t items = std::uint64_t{pass.work_groups} * pass.work_group_size;
            for (const std::uint64_t apart : {std::uint64_t{1}, items})
                for (std::uint64_t first = 0; first < 12; ++first) {
                    const auto place = [&](std::uint64_t vector) {
                        return vector * apart * per_load + first % per_load;
                    };
                    std::vector<std::uint64_t> winners;
                    for (std::uint64_t vector = first; vector < 12; ++vector)
                        winners.push_back(place(vector));
                    INFO("vectors " << apart << " apart, winners from vector " << first);
                    const auto input =
                        upload(target.queue, winners_at(recipe.type, recipe.op, length, winners));
                    const auto device =
                        reducer->reduce_timed(target.queue.queue, {{input, length, 0}});
                    CHECK(device.index == static_cast<std::int64_t>(place(first)));
                }
        }
    }
}

TEST_CASE("argmin and argmax of 1- and 2-byte integers and bools find a lone extreme in every "
          "vector of a work-item's first blocks",
          "[device][argops]") {
    // A CPU's fold takes a run's whole blocks of 16 vectors by their best value first
    // (REDUCE_OWN_TYPE_OP): one winner among losers, in each of the first work-item's first 48
    // vectors (three blocks), a lane further each vector. A block that loses a vector or a
    // lane fails it.
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        const auto type = recipe.type;
        const bool narrow = type == DataType::int8 || type == DataType::uint8 ||
                            type == DataType::int16 || type == DataType::uint16 ||
                            type == DataType::boolean;
        if (!info(recipe.op).indexed || !narrow || recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const std::uint64_t per_load = info(type).values_per_load();
            const auto& shape = reducer->shape();
            const std::uint64_t length =
                48 * per_load * shape.max_work_groups * shape.work_group_size + 5;
            for (std::uint64_t vector = 0; vector < 48; ++vector) {
                const auto place = vector * per_load + vector % per_load;
                INFO("the winner at " << place);
                const auto values = lone_winner(type, recipe.op, length, place);
                const auto input = upload(target.queue, values);
                const auto device = reducer->reduce_timed(target.queue.queue, {{input, length, 0}});
                CHECK(device.index == static_cast<std::int64_t>(place));
            }
        }
    }
}

TEST_CASE("argmin and argmax count indices across buffers and streamed chunks",
          "[device][argops]") {
    const std::uint64_t length = 10007;
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (!info(recipe.op).indexed || recipe.finish != Finish::passes ||
            !(recipe.type == DataType::int8 || recipe.type == DataType::float32))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            // The extreme first in the fourth buffer, and again in later ones.
            const auto values = values_of(recipe.type, length, [&](std::uint64_t i) {
                const bool planted = i == 3 * 997 + 5 || i == 5 * 997 || i == length - 1;
                return planted ? (recipe.op == Op::argmax ? 9.0 : -9.0) : double(i % 5);
            });
            const auto expected = host_reduce(recipe.op, values, length);
            CHECK(expected.index == 3 * 997 + 5);
            SECTION("in buffers of 997 values") {
                const DeviceInput input(target.queue.context, target.queue.queue, values, 997);
                CHECK(input.buffers() == 11);
                check_same(reducer->reduce_timed(target.queue.queue, input.prefix(length)),
                           expected);
            }
            SECTION("streamed in chunks of about 1000 values") {
                const auto stream = make_host_stream(*reducer, target.queue.queue,
                                                     ValuesView(values), 0, length, 1000, 0);
                check_same(stream->reduce(length).reduction, expected);
            }
        }
    }
}

TEST_CASE("a share of an input counts argmax's index and a map's index from its place in it",
          "[device][argops]") {
    // Values 5000 ... 10006 of an input, mapped to i % 7000: the greatest is 6999, at index 6999
    // of the whole input, where a share that counted i from its own first value would find
    // 5006 at its last.
    const std::uint64_t first = 5000;
    const std::uint64_t length = 5007;
    Recipe recipe;
    recipe.type = DataType::int64;
    recipe.op = Op::argmax;
    recipe.user.map = "(long)(i % 7000)";
    recipe.finish = Finish::passes;
    const auto values = random_values(recipe.type, recipe.op, length, 7); // the map ignores them
    const auto check_whole = [](const auto& result) {
        CHECK(result.index == 6999);
        CHECK(same_value(result.value, Scalar(std::int64_t{6999})));
    };
    for (const auto& target : devices_under_test())
        DYNAMIC_SECTION(target.report.name) {
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const auto& queue = target.queue.queue;
            SECTION("in buffers of 997 values") {
                const DeviceInput input(target.queue.context, queue, values, 997, first);
                check_whole(reducer->reduce_timed(queue, input.prefix(length)));
            }
            SECTION("streamed in chunks of about 1000 values") {
                HostStream stream(*reducer, queue, values, 1000, false, nullptr, first);
                check_whole(stream.reduce(length).reduction);
            }
            SECTION("checked in index order") {
                check_whole(reference_for(*reducer, queue, {ValuesView(values)}, first));
            }
        }
}

TEST_CASE("enqueue_reduce writes argmax's pair: the value at byte 0, its index at byte 8",
          "[device][argops]") {
    for (const auto& target : devices_under_test()) {
        DYNAMIC_SECTION(target.report.name) {
            Recipe recipe;
            recipe.type = DataType::float32;
            recipe.op = Op::argmax;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            REQUIRE(reducer->accumulator_size() == 16);
            const auto values = tied_values(DataType::float32, 5000); // 3, 2, 1, 0, 4, 3, ...
            const auto input = upload(target.queue, values);
            const cl::Buffer result(target.queue.context, CL_MEM_READ_WRITE, 2 * 16);
            // From value 1 on into the second pair: the index counts from `first`.
            reducer->enqueue_reduce(target.queue.queue, input, 1, 4999, result, 1).wait();
            IndexedValue<cl_float> pair{};
            target.queue.queue.enqueueReadBuffer(result, CL_TRUE, 16, sizeof pair, &pair);
            CHECK(pair.value == 4);
            CHECK(pair.index == 3);
        }
    }
}
