// Device tests of the ops and types as data: every op on every type, path and finish, and
// NaN, infinities and signed zeros as NumPy reduces them.

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/measure.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace clreduce;

namespace {

/// `values` as an input of `type` (floating-point types only: the special values below).
HostValues floating_values(DataType type, const std::vector<double>& values) {
    return visit_type(type, [&](auto zero) -> HostValues {
        using T = decltype(zero);
        std::vector<T> converted;
        for (const double value : values) {
            const auto single = static_cast<float>(value);
            if constexpr (std::is_same_v<T, Half>)
                converted.push_back(to_half(single));
            else if constexpr (std::is_same_v<T, BFloat16>)
                converted.push_back(to_bfloat16(single));
            else if constexpr (std::is_floating_point_v<T>)
                converted.push_back(static_cast<T>(value));
            else
                throw std::logic_error("floating-point types only");
        }
        return converted;
    });
}

/// The result as a double, for the checks against NumPy's answers.
double as_double(const Scalar& value) {
    return std::visit([](auto x) { return static_cast<double>(x); }, value);
}

} // namespace

TEST_CASE("every op reduces every type like the host reference, on every path and finish",
          "[device][ops]") {
    // The finish is the engine's, whatever the op and type: the single launch is held to three
    // types (bytes, halves and floats) of every op, and the combinations() the other device
    // tests cover in depth are left to them, to keep CI within its time.
    const auto tested_here = [](const Recipe& recipe) {
        const auto& classic = combinations();
        const bool elsewhere =
            std::any_of(classic.begin(), classic.end(),
                        [&](const Combination& other) { return other.recipe == recipe; });
        // argmin and argmax are held to their index too, in test_argops.cpp.
        return !elsewhere && !info(recipe.op).indexed &&
               (recipe.finish == Finish::passes || recipe.type == DataType::int8 ||
                recipe.type == DataType::float16 || recipe.type == DataType::float32);
    };
    for (const auto& combination : every_op_and_type()) {
        if (!tested_here(combination.recipe))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto& recipe = combination.recipe;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const auto lengths = telling_lengths(*reducer);
            const auto longest = *std::max_element(lengths.begin(), lengths.end());
            const auto values = random_values(recipe.type, recipe.op, longest, 2027);
            const auto input = upload(target.queue, values);
            for (const auto length : lengths) {
                // From an odd first value too, so that the head and tail take values.
                for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{3}}) {
                    if (first >= length)
                        continue;
                    const auto count = length - first;
                    const auto device = reducer->reduce(target.queue.queue, input, first, count);
                    const auto host =
                        host_reduce(recipe.op, ValuesView(values).part(first, count), count).value;
                    INFO("values " << first << " + " << count << ": device "
                                   << result_text(recipe.op, device) << ", host "
                                   << result_text(recipe.op, host));
                    CHECK(same_value(device, host));
                }
            }
        }
    }
}

namespace {

/// Where a deciding byte goes in an input of `length` bytes: each of the first 40 places, then
/// one in 241; past 2^12, a byte in each of the first 8 vectors of 16 that a work-item of the
/// first pass reads (the runs of all four accumulators, whose turns may take two loads:
/// loads_per_accumulator()), in the contiguous (CPU) and the strided (GPU) layout, and the last.
std::vector<std::uint64_t> deciding_places(const Reducer& reducer, std::uint64_t length) {
    std::vector<std::uint64_t> places;
    if (length < 4096) {
        for (std::uint64_t place = 0; place < length; place += place < 40 ? 1 : 241)
            places.push_back(place);
        return places;
    }
    const auto first = reducer.plan(length).front();
    const std::uint64_t items = std::uint64_t{first.work_groups} * first.work_group_size;
    for (std::uint64_t vector = 0; vector < 8; ++vector)
        places.insert(places.end(), {16 * vector + vector, 16 * vector * items + 15});
    places.push_back(length - 1);
    return places;
}

/// `length` bytes `others` but `decider` at `place`, as values of the 1-byte `type`.
HostValues deciding_bytes(DataType type, std::uint64_t length, std::uint8_t others,
                          std::uint8_t decider, std::uint64_t place) {
    std::vector<std::uint8_t> bytes(length, others);
    bytes[place] = decider;
    return visit_type(type, [&](auto zero) -> HostValues {
        std::vector<decltype(zero)> typed(length);
        if constexpr (sizeof zero == 1)
            std::memcpy(static_cast<void*>(typed.data()), bytes.data(), length);
        return typed;
    });
}

/// The 1-byte recipes of `ops` with the passes' finish (the fold is the same for both), each
/// given to `check(target, reducer, type, op)` in a section of its own.
template <typename Check>
void for_byte_recipes(const std::vector<Op>& ops, Check check) {
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (info(recipe.type).size != 1 ||
            std::find(ops.begin(), ops.end(), recipe.op) == ops.end() ||
            recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            check(*combination.target, *reducer, recipe.type, recipe.op);
        }
    }
}

/// Two lengths, one past 16 loads of 8 a work-item, for the deciding places of each.
std::vector<std::uint64_t> deciding_lengths(const Reducer& reducer) {
    const auto& shape = reducer.shape();
    const std::uint64_t most_items = std::uint64_t{shape.max_work_groups} * shape.work_group_size;
    return {1003, 16 * 8 * most_items + 3};
}

} // namespace

TEST_CASE("any and all of bytes find the one value that decides them, wherever a load has it",
          "[device][ops]") {
    // Bytes are tested a 32-bit word at a time (REDUCE_TEST_BYTES): the deciding byte in each
    // place of a load of 16, in the head and the tail, in each accumulator's loads, and with
    // its top bit alone set.
    for_byte_recipes({Op::any, Op::all}, [](const DeviceUnderTest& target, Reducer& reducer,
                                            DataType type, Op op) {
        const bool any = op == Op::any;
        // A bool's 0x80 is NumPy's True, as any nonzero byte is.
        const std::uint8_t deciding = 0x80;
        for (const auto length : deciding_lengths(reducer))
            for (const auto place : deciding_places(reducer, length)) {
                // any: zeros but one; all: nonzero but one zero.
                const auto values =
                    deciding_bytes(type, length, any ? 0 : deciding, any ? deciding : 0, place);
                const auto input = upload(target.queue, values);
                for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{3}}) {
                    const auto count = length - first;
                    const auto device = reducer.reduce(target.queue.queue, input, first, count);
                    INFO("length " << length << ", place " << place << ", values " << first << " + "
                                   << count);
                    CHECK(result_text(op, device) ==
                          ((any == (place >= first)) ? "true" : "false"));
                }
            }
    });
}

TEST_CASE("the min and max of bytes find a lone extreme wherever a load has it", "[device][ops]") {
    // A CPU folds int8's and uint8's in their own type (REDUCE_OWN_TYPE_OP), GPUs in 32-bit
    // lanes, and bools' are tested a word at a time: the one extreme in each place of a load
    // of 16, in the head and the tail and in each accumulator's loads, as the host reference
    // finds it.
    for_byte_recipes(
        {Op::min, Op::max, Op::nanmin, Op::nanmax},
        [](const DeviceUnderTest& target, Reducer& reducer, DataType type, Op op) {
            const bool max = op == Op::max || op == Op::nanmax;
            // The extreme among fives: int8's 127 or -127 (0x81), uint8's 129 or 1; a bool's True
            // among Falses or its False among Trues.
            const bool bools = type == DataType::boolean;
            const bool int8 = type == DataType::int8;
            const std::uint8_t extreme = max ? (int8 ? 0x7f : 0x81) : (int8 ? 0x81 : bools ? 0 : 1);
            const std::uint8_t others = bools && max ? 0 : 0x05;
            for (const auto length : deciding_lengths(reducer))
                for (const auto place : deciding_places(reducer, length)) {
                    const auto values = deciding_bytes(type, length, others, extreme, place);
                    const auto input = upload(target.queue, values);
                    for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{3}}) {
                        const auto count = length - first;
                        INFO("length " << length << ", place " << place << ", values " << first
                                       << " + " << count);
                        const auto host =
                            host_reduce(op, ValuesView(values).part(first, count), count).value;
                        CHECK(reducer.reduce(target.queue.queue, input, first, count) == host);
                    }
                }
        });
}

TEST_CASE("every nonzero byte of a bool is NumPy's True, for every op, path and finish",
          "[device][ops]") {
    // A uint8 mask viewed as a bool holds 255s. The device must give what the same bools
    // written as 0 and 1 give: bytes with zeros (sum, max, argmax, any) and bytes of 2 and up
    // (prod, min, argmin and all, which a zero decides).
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (recipe.type != DataType::boolean)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const auto lengths = telling_lengths(*reducer);
            const auto longest = *std::max_element(lengths.begin(), lengths.end());
            for (const unsigned least : {0u, 2u}) {
                std::vector<Boolean> bytes(longest), bools(longest);
                for (std::uint64_t i = 0; i < longest; ++i) {
                    bytes[i].byte =
                        static_cast<std::uint8_t>(least + (i * 37 + 11) % (256 - least));
                    bools[i].byte = bytes[i].byte != 0;
                }
                const auto input = upload(target.queue, HostValues(bytes));
                for (const auto length : lengths) {
                    const auto device =
                        reducer->reduce_timed(target.queue.queue, {{input, length}});
                    const auto host = host_reduce(recipe.op, HostValues(bools), length);
                    INFO("bytes from "
                         << least << ", length " << length << ": device " << to_string(device.value)
                         << " at " << device.index.value_or(-1) << ", host "
                         << to_string(host.value) << " at " << host.index.value_or(-1));
                    CHECK(same_value(device.value, host.value));
                    CHECK(device.index == host.index);
                }
            }
        }
    }
}

TEST_CASE("NaN, infinities and signed zeros reduce as NumPy's do, whatever the type",
          "[device][ops]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    struct Case {
        const char* what;
        std::vector<double> special; // planted among ones
        Op op;
        double numpy; // NumPy's answer
    };
    const std::vector<Case> cases = {
        {"a NaN in a sum", {nan}, Op::sum, nan},
        {"both infinities in a sum", {inf, -inf}, Op::sum, nan},
        {"an infinity in a product", {-inf}, Op::prod, -inf},
        {"a NaN in a min", {-inf, nan}, Op::min, nan},
        {"a NaN in a max", {nan, inf}, Op::max, nan},
        {"a NaN in a nanmin", {nan, -2}, Op::nanmin, -2},
        {"a NaN in a nanmax", {nan, 3}, Op::nanmax, 3},
        {"infinities in a min", {inf, -inf}, Op::min, -inf},
        {"a NaN in an all", {nan}, Op::all, 1},
    };
    for (const auto& combination : every_op_and_type()) {
        const auto& recipe = combination.recipe;
        if (!info(recipe.type).floating() || recipe.finish != Finish::passes)
            continue;
        for (const auto& example : cases) {
            if (example.op != recipe.op)
                continue;
            DYNAMIC_SECTION(combination.name() << ": " << example.what) {
                const auto reducer = make_reducer(*combination.target, recipe);
                REQUIRE(reducer);
                // Ones (their sum and product are exact in every type), the special values
                // planted in the middle, where the vector loads read them.
                std::vector<double> values(1001, 1.0);
                for (std::size_t i = 0; i < example.special.size(); ++i)
                    values[517 + 2 * i] = example.special[i];
                const auto host_values = floating_values(recipe.type, values);
                const auto input = upload(combination.target->queue, host_values);
                const auto device =
                    reducer->reduce(combination.target->queue.queue, input, 0, values.size());
                const auto result = as_double(device);
                INFO("device " << result_text(recipe.op, device));
                if (std::isnan(example.numpy))
                    CHECK(std::isnan(result));
                else
                    CHECK(result == example.numpy);
            }
        }
    }
}

TEST_CASE("a user's op and map reduce like the same definitions in index order", "[device][ops]") {
    struct Case {
        DataType type;
        Op op;
        Expressions user;
    };
    const std::vector<Case> cases = {
        {DataType::int32, Op::custom, {"a * b", "1", ""}},           // a product, wrapping
        {DataType::uint32, Op::custom, {"a ^ b", "0", "x + i"}},     // the index reaches the map
        {DataType::float32, Op::custom, {"a + b", "0", "x * x"}},    // a sum of squares
        {DataType::int8, Op::custom, {"max(a, b)", "LONG_MIN", ""}}, // in the int64 accumulator
        {DataType::float64, Op::max, {"", "", "fabs(x) + i"}},       // a map the host cannot do
        {DataType::float16, Op::sum, {"", "", "x * x"}},             // checked on the host
    };
    for (const auto& target : devices_under_test())
        for (const auto& example : cases)
            for (const auto finish : {Finish::passes, Finish::last_group}) {
                Recipe recipe;
                recipe.type = example.type;
                recipe.op = example.op;
                recipe.user = example.user;
                recipe.finish = finish;
                DYNAMIC_SECTION(target.report.name << ": " << name_of(example.type) << " "
                                                   << example.user.reduce << " map "
                                                   << example.user.map << ", " << name_of(finish)) {
                    std::unique_ptr<Reducer> reducer;
                    try {
                        reducer = make_reducer(target, recipe);
                    } catch (const Error& error) {
                        if (finish == Finish::passes || error.cause() != Errc::unsupported)
                            throw;
                        continue; // the device runs no last-group finish
                    }
                    REQUIRE(reducer);
                    const auto lengths = telling_lengths(*reducer);
                    const auto longest = *std::max_element(lengths.begin(), lengths.end());
                    const auto values = random_values(recipe.type, recipe.op, longest, 5);
                    const auto input = upload(target.queue, values);
                    const auto& queue = target.queue.queue;
                    for (const auto length : lengths) {
                        const auto device = reducer->reduce(queue, input, 0, length);
                        const auto piece = std::vector<Piece>{{input, length, 0}};
                        const auto reference = reference_for(*reducer, queue, piece,
                                                             ValuesView(values).part(0, length));
                        INFO("length " << length << ": device " << to_string(device)
                                       << ", reference " << to_string(reference.value) << " ("
                                       << reference.method << ")");
                        // One work-item's float sum rounds up to `length` times (Higham).
                        const double bound = 2.0 * static_cast<double>(length) *
                                             info(reducer->accumulator()).unit_roundoff *
                                             std::abs(as_double(reference.value));
                        if (info(reducer->accumulator()).floating())
                            CHECK(std::abs(as_double(device) - as_double(reference.value)) <=
                                  bound);
                        else
                            CHECK(device == reference.value);
                    }
                }
            }
}

TEST_CASE("a map's index counts from the range's first value, however many values a load reads",
          "[device][ops]") {
    // x + i, joined by exclusive or: any index off by one changes the result. Bytes are read 16
    // at a time, 16-bit integers 8 and 32-bit ones 4, each with a head before the first
    // aligned load that a range's first value decides.
    const Expressions indexed{"a ^ b", "0", "x + i"};
    for (const auto& target : devices_under_test())
        for (const auto type : {DataType::uint8, DataType::int16, DataType::uint32}) {
            Recipe recipe;
            recipe.type = type;
            recipe.op = Op::custom;
            recipe.user = indexed;
            recipe.finish = Finish::passes;
            DYNAMIC_SECTION(target.report.name << ": " << name_of(type)) {
                const auto reducer = make_reducer(target, recipe);
                REQUIRE(reducer);
                const auto lengths = telling_lengths(*reducer);
                const auto longest = *std::max_element(lengths.begin(), lengths.end());
                const auto values = random_values(type, Op::sum, longest, 13);
                const auto input = upload(target.queue, values);
                const auto& queue = target.queue.queue;
                for (const auto length : lengths)
                    for (const std::uint64_t first : {0, 1, 5, 13}) {
                        if (first >= length)
                            continue;
                        const auto count = length - first;
                        const auto device = reducer->reduce(queue, input, first, count);
                        const auto piece = std::vector<Piece>{{input, count, first}};
                        const auto reference = reference_for(*reducer, queue, piece,
                                                             ValuesView(values).part(first, count));
                        INFO("values " << first << " + " << count << ": device "
                                       << to_string(device) << ", reference "
                                       << to_string(reference.value));
                        CHECK(device == reference.value);
                    }
            }
        }
}

TEST_CASE("a user's op that does not compile is a build failure with the compiler's log",
          "[device][ops]") {
    for (const auto& target : devices_under_test()) {
        Recipe recipe;
        recipe.op = Op::custom;
        recipe.user = {"a +", "0", ""};
        try {
            Reducer reducer(target.queue.context, target.queue.device, recipe,
                            reduce_kernel_text());
            FAIL("built");
        } catch (const Error& error) {
            CHECK(error.cause() == Errc::kernel_build);
        }
    }
}

TEST_CASE("a user's op combines its shares' results on the device into the whole input's",
          "[device][ops]") {
    Recipe recipe;
    recipe.type = DataType::int32;
    recipe.op = Op::custom;
    recipe.user = {"a ^ b", "0", "x + (int)i"}; // the index counts from the whole input's start
    for (const auto& target : devices_under_test())
        DYNAMIC_SECTION(target.report.name) {
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            // Three blocks of the in-order check and a short fourth; shares across them.
            const std::uint64_t length = 3 * Reducer::in_order_block + 5;
            const auto values = random_values(recipe.type, recipe.op, length, 7);
            const auto input = upload(target.queue, values);
            const auto& queue = target.queue.queue;
            std::vector<Reduction> shares;
            const std::uint64_t bounds[] = {0, 1000, 5000, length};
            for (std::size_t i = 0; i + 1 < std::size(bounds); ++i)
                shares.push_back(reducer->reduce_timed(
                    queue, {{input, bounds[i + 1] - bounds[i], bounds[i], bounds[i]}}));
            const auto whole = reducer->reduce_results(queue, shares).value;
            CHECK(whole == reducer->reduce_in_order(queue, {{input, length, 0, 0}}).value);
            CHECK(whole == reducer->reduce(queue, input, 0, length));
            CHECK(reducer->reduce_results(queue, {}).value == Scalar(std::int32_t{0}));
            Reduction wider;
            wider.value = std::int64_t{1};
            CHECK_THROWS_AS(reducer->reduce_results(queue, {wider}), Error);
        }
}
