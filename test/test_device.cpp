// Device tests: the reduction on every device found, against the host reference.

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/input.hpp"
#include "detail/measure.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <climits>
#include <iterator>
#include <limits>
#include <stdexcept>

using namespace clreduce;

TEST_CASE("every device reduces the telling lengths like the host reference", "[device]") {
    // The tuned shape, the textbook one (which runs every pass), and tiny work-groups that
    // make many passes or many partials. An unreported path is held only to the shapes
    // --allow-unreported runs by default: NVIDIA's unreported work_group_reduce_min returns 0
    // in work-groups of one or two work-items.
    const std::pair<Factor, std::size_t> shapes[] = {
        {Factor::device, 0}, {Factor::textbook, 0}, {Factor::device, 1}, {Factor::textbook, 2}};
    for (const auto& combination : combinations_and_wide_loads())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            for (const auto& [factor, work_group_size] : shapes) {
                auto recipe = combination.recipe;
                if ((work_group_size != 0 && !reports_support(target.report, *recipe.path)) ||
                    (factor == Factor::textbook && recipe.finish == Finish::last_group))
                    continue;
                recipe.factor = factor;
                recipe.work_group_size = work_group_size;
                const auto reducer = make_reducer(target, recipe);
                REQUIRE(reducer);
                CHECK(reducer->finish() == recipe.finish);
                const auto lengths = telling_lengths(*reducer);
                const auto longest = *std::max_element(lengths.begin(), lengths.end());
                const auto values = random_values(recipe.type, recipe.op, longest, 2026);
                const auto input = upload(target.queue, values);
                for (const auto length : lengths) {
                    INFO(name_of(factor) << " factor, work-group size "
                                         << reducer->work_group_size() << ", length " << length);
                    const auto device = reducer->reduce(target.queue.queue, input, 0, length);
                    const auto host = host_reduce(recipe.op, values, length).value;
                    INFO("device " << to_string(device) << ", host " << to_string(host));
                    CHECK(device == host);
                }
                INFO("the input buffer was written");
                CHECK(read_back(target.queue, input, recipe.type, longest) == values);
            }
        }
}

namespace {

/// The input `length` copies of `value`, with `last` at the end.
template <typename T>
HostValues filled(std::uint64_t length, T value, T last) {
    std::vector<T> values(length, value);
    values.back() = last;
    return values;
}

} // namespace

TEST_CASE("every device wraps integer sums around and finds the type's extremes", "[device]") {
    const std::uint64_t length = 1000003; // odd
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const auto op = reducer->op();
            visit_type(reducer->type(), [&](auto zero) {
                using T = decltype(zero);
                const T lowest = std::numeric_limits<T>::lowest();
                const T highest = std::numeric_limits<T>::max();
                const auto check = [&](const HostValues& values, std::uint64_t prefix) {
                    const auto input = upload(target.queue, values);
                    const auto device = reducer->reduce(target.queue.queue, input, 0, prefix);
                    const auto host = host_reduce(op, values, prefix).value;
                    INFO("device " << to_string(device) << ", host " << to_string(host));
                    CHECK(device == host);
                };
                if (op == Op::sum && std::is_integral_v<T>) {
                    check(filled(length, highest, highest), length); // wraps around
                    check(filled(length, lowest, lowest), length);   // an odd count of lowest
                } else if (op != Op::sum) {
                    // The identity everywhere but for the other extreme at the very end.
                    const T identity = op == Op::min ? highest : lowest;
                    const T extreme = op == Op::min ? lowest : highest;
                    check(filled(length, identity, extreme), length);
                    check(filled(length, identity, extreme), length - 1);
                }
            });
        }
}

TEST_CASE("sums of bytes at their extremes fit a CPU's 16-bit lanes in every work-item's run",
          "[device]") {
    // A CPU adds a run's loads of 16 bytes in 16-bit lanes, 256 loads each at most, then in
    // 64 bits (REDUCE_WIDENING_SUM): runs of some 1100 loads, every byte -128, 127 or 255,
    // overflow 16-bit lanes that take more.
    for (const auto& combination : combinations_and_wide_loads()) {
        const auto& recipe = combination.recipe;
        const bool bytes = recipe.type == DataType::int8 || recipe.type == DataType::uint8;
        if (!bytes || recipe.op != Op::sum || recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const auto& shape = reducer->shape();
            const std::uint64_t length =
                1100 * 16 * std::uint64_t{shape.max_work_groups} * shape.work_group_size + 3;
            const auto inputs = recipe.type == DataType::int8
                                    ? std::vector<HostValues>{filled<cl_char>(length, -128, -128),
                                                              filled<cl_char>(length, 127, 127)}
                                    : std::vector<HostValues>{filled<cl_uchar>(length, 255, 255)};
            for (const auto& values : inputs) {
                const auto input = upload(target.queue, values);
                const auto device = reducer->reduce(target.queue.queue, input, 0, length);
                const auto host = host_reduce(Op::sum, values, length).value;
                INFO("device " << to_string(device) << ", host " << to_string(host));
                CHECK(device == host);
            }
        }
    }
}

TEST_CASE("sums of bytes wrap around in a 32-bit accumulator as the values one by one would",
          "[device]") {
    // 2^25 + 3 bytes of 127, of -128 or of 255 pass the range of int32 or uint32; the kernel
    // adds a load's bytes in words first (REDUCE_SUM_BYTES), the host one value at a time.
    const std::uint64_t length = (std::uint64_t{1} << 25) + 3;
    const std::pair<HostValues, DataType> cases[] = {
        {filled<cl_char>(length, 127, 127), DataType::int32},
        {filled<cl_char>(length, -128, -128), DataType::int32},
        {filled<cl_char>(length, -128, 5), DataType::uint32},
        {filled<cl_uchar>(length, 255, 255), DataType::uint32},
        {filled<cl_uchar>(length, 255, 3), DataType::int32}};
    for (const auto& combination : combinations()) {
        if (combination.recipe.type != DataType::int32 || combination.recipe.op != Op::sum)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            for (const auto& [values, accumulator] : cases) {
                auto recipe = combination.recipe;
                recipe.type = type_of(values);
                recipe.accumulate = accumulator;
                const auto reducer = make_reducer(target, recipe);
                REQUIRE(reducer);
                const auto input = upload(target.queue, values);
                const auto device = reducer->reduce(target.queue.queue, input, 0, length);
                const auto host = host_reduce(Op::sum, values, length, accumulator).value;
                INFO(name_of(recipe.type) << " in " << name_of(accumulator) << ": device "
                                          << to_string(device) << ", host " << to_string(host));
                CHECK(device == host);
            }
        }
    }
}

TEST_CASE("an input in several buffers reduces like one", "[device]") {
    // Pieces of one value, of odd lengths, and of one work-group's worth and one more.
    const std::uint64_t length = 300007;
    for (const auto& combination : combinations_and_wide_loads())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const auto values = random_values(reducer->type(), reducer->op(), length, 5);
            const auto per_work_group = reducer->shape().values_per_work_group();
            for (const std::uint64_t per_buffer :
                 {std::uint64_t{100003}, per_work_group + 1, length - 1}) {
                const DeviceInput input(target.queue.context, target.queue.queue, values,
                                        per_buffer);
                for (const std::uint64_t prefix : {length, length - 1, per_buffer + 1}) {
                    INFO(per_buffer << " values per buffer, length " << prefix);
                    const auto device =
                        reducer->reduce_timed(target.queue.queue, input.prefix(prefix)).value;
                    const auto host = host_reduce(reducer->op(), values, prefix).value;
                    INFO("device " << to_string(device) << ", host " << to_string(host));
                    CHECK(device == host);
                }
            }
        }
}

TEST_CASE("back-to-back runs all validate, so the arrival count is set for each", "[device]") {
    // Lengths whose launches differ in work-groups, so a count left over from one run would
    // make a later, smaller launch finish early or never; on two queues in turn, as the tool
    // measures.
    const std::uint64_t lengths[] = {1001, 100003, 7, 65537, 2, 1000003};
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const auto values = random_values(reducer->type(), reducer->op(), 1000003, 99);
            const auto input = upload(target.queue, values);
            int mismatches = 0;
            for (int run = 0; run < 300; ++run) {
                const auto length = lengths[run % std::size(lengths)];
                const auto& queue = run % 2 == 0 ? target.queue.queue : target.queue.unprofiled;
                if (reducer->reduce(queue, input, 0, length) !=
                    host_reduce(reducer->op(), values, length).value)
                    ++mismatches;
            }
            CHECK(mismatches == 0);
        }
}

TEST_CASE("a measurement times the device on the profiling queue and the wait on the other",
          "[device]") {
    for (const auto& target : devices_under_test())
        DYNAMIC_SECTION(target.report.name) {
            Reducer reducer(target.queue.context, target.queue.device);
            const std::uint64_t length = 100003;
            const auto values = random_values(reducer.type(), reducer.op(), length, 5);
            const DeviceInput input(target.queue.context, target.queue.queue, values, length);
            const auto measurement =
                measure(reducer, target.queue, input, values, length, {3, true}, nullptr);
            REQUIRE(measurement.runs.size() == 3);
            REQUIRE(measurement.waits.size() == 3);
            std::vector<double> waits_us;
            for (std::size_t i = 0; i < 3; ++i) {
                CHECK(measurement.runs[i].profiled);
                CHECK_FALSE(measurement.waits[i].profiled);
                waits_us.push_back(measurement.waits[i].host_us);
            }
            CHECK(measurement.valid());
            CHECK(measurement.observed_us().min == summarize(waits_us).min);
            CHECK(measurement.observed_us().min > 0);
        }
}

TEST_CASE("a single launch that did not complete leaves no count behind for the next", "[device]") {
    // reduce.cl, with work-group 0 leaving without counting itself in (its REDUCE_ARRIVE hook
    // redefined, as -D would) when the length is 1000003: that launch never finishes, and the
    // count it leaves would make the next one finish early, from partials that are not all
    // there. "#line 1" keeps the build log's line numbers those of reduce.cl.
    const auto text = "#define REDUCE_ARRIVE(arrivals) "
                      "((length == 1000003 && get_group_id(0) == 0) ? 0u : arrive(arrivals))\n"
                      "#line 1\n" +
                      reduce_kernel_text();
    for (const auto& combination : combinations()) {
        const auto& recipe = combination.recipe;
        if (recipe.finish != Finish::last_group || recipe.type != DataType::int32 ||
            recipe.op != Op::sum)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            Reducer reducer(target.queue.context, target.queue.device, recipe, text);
            const auto values = random_values(recipe.type, recipe.op, 1000003, 5);
            const auto input = upload(target.queue, values);
            REQUIRE(reducer.plan(1000003).front().finishes);
            // The launch that does not complete: no work-group finishes, so no result is
            // written (which also shows that the hook took effect).
            CHECK(reducer.reduce(target.queue.queue, input, 0, 1000003) !=
                  host_reduce(recipe.op, values, 1000003).value);
            for (const std::uint64_t length : {100003, 40009, 100003})
                CHECK(reducer.reduce(target.queue.queue, input, 0, length) ==
                      host_reduce(recipe.op, values, length).value);
        }
    }
}

TEST_CASE("a reduction refuses an input buffer shorter than the length", "[device]") {
    for (auto& target : devices_under_test()) {
        const auto reducer = make_reducer(target, {});
        REQUIRE(reducer);
        const auto input = upload(target.queue, std::vector<cl_int>(100, 1));
        CHECK(reducer->reduce(target.queue.queue, input, 0, 100) == Scalar(cl_int{100}));
        CHECK_THROWS_AS(reducer->reduce(target.queue.queue, input, 0, 101), Error);
    }
}

TEST_CASE("a length near 2^64 does not wrap past the device-memory check", "[device]") {
    for (auto& target : devices_under_test()) {
        const auto reducer = make_reducer(target, {});
        REQUIRE(reducer);
        // With 2^20 values per buffer, the length and its partials add up to 2^64 and more.
        const std::uint64_t length = 18446603337294938112u; // 2^64 - 2^47
        try {
            reducer->check_fits(length, std::uint64_t{1} << 20);
            FAIL("length " << length << " passed the device-memory check");
        } catch (const Error& failure) {
            CHECK(failure.cause() == Errc::unsupported);
            CHECK_THAT(failure.what(), Catch::Contains("CL_DEVICE_GLOBAL_MEM_SIZE"));
        }
    }
}

TEST_CASE("NVIDIA's compiled kernel shows the fences that allow the last-group finish",
          "[device]") {
    bool nvidia = false;
    for (auto& target : devices_under_test()) {
        if (target.report.platform_name.find("NVIDIA") == std::string::npos)
            continue;
        nvidia = true;
        INFO("device '" << target.report.name << "'");
        Recipe recipe;
        recipe.finish = std::nullopt;
        const auto reducer = make_reducer(target, recipe);
        REQUIRE(reducer);
        CHECK(reducer->finish() == Finish::last_group);
    }
    if (!nvidia)
        WARN("no NVIDIA device here: test_finish.cpp's PTX fixtures stand in for its binary");
}
