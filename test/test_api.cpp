// The public API as another OpenCL program calls it: its own context and queues, ranges of its
// own buffers at any offset, results written into its own device buffer and chained by events.

#include "catch_compat.hpp"
#include "clreduce/reducer.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <random>
#include <stdexcept>

using namespace clreduce;

namespace {

/// `count` values of `values` from `first` on, reduced by the host reference.
Scalar host_range(Op op, const HostValues& values, std::uint64_t first, std::uint64_t count) {
    return host_reduce(op, ValuesView(values).part(first, count), count).value;
}

/// The ranges that break offsets: each of the first offsets mod 4 and one past, with counts
/// that end inside the head, fill one vector, or end a value either side of a work-group's
/// worth.
std::vector<std::pair<std::uint64_t, std::uint64_t>> telling_ranges(const Reducer& reducer) {
    const auto work_group = reducer.shape().values_per_work_group();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (const std::uint64_t first : {0, 1, 2, 3, 5})
        for (const std::uint64_t count :
             {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{4},
              std::uint64_t{5}, work_group - 1, work_group, work_group + 1})
            ranges.emplace_back(first, count);
    ranges.emplace_back(3, 1000003);
    return ranges;
}

} // namespace

TEST_CASE("a reducer on the caller's own context and queue, profiling off and on", "[api]") {
    for (auto& target : devices_under_test()) {
        const cl::Device& device = target.queue.device;
        const cl::Context context(device);
        const auto values = random_values(DataType::int32, Op::sum, 100003, 7);
        Reducer reducer(context, device); // int32 sum, the best path, finish auto
        CHECK(reducer.path() == best_path(target.report));
        for (const bool profiling : {false, true}) {
            INFO("device '" << target.report.name << "', profiling " << profiling);
            const cl::CommandQueue queue(context, device,
                                         profiling ? CL_QUEUE_PROFILING_ENABLE : 0);
            const auto input = upload(context, queue, values);
            const auto expected = host_range(Op::sum, values, 0, 100003);
            CHECK(reducer.reduce(queue, input, 0, 100003) == expected);
            CHECK(reducer.reduce<cl_int>(queue, input, 0, 100003) == std::get<cl_int>(expected));
            const auto timed = reducer.reduce_timed(queue, {{input, 100003}});
            CHECK(timed.value == expected);
            CHECK(timed.profiled == profiling);
            CHECK(timed.passes.size() == reducer.plan(100003).size());
            if (!profiling)
                CHECK(timed.span_us == 0);
        }
    }
}

TEST_CASE("every type, op and finish reduces any range, blocking and into a result buffer",
          "[api]") {
    for (const auto& combination : combinations_and_wide_loads())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const auto& queue = target.queue.queue;
            const auto ranges = telling_ranges(*reducer);
            const auto values = random_values(reducer->type(), reducer->op(), 1000011, 3);
            const auto input = upload(target.queue, values);
            // Results at odd indices: none at the buffer's start.
            const cl::Buffer results(target.queue.context, CL_MEM_READ_WRITE,
                                     (2 * ranges.size() + 1) * reducer->accumulator_size());
            std::vector<cl::Event> chain;
            for (std::size_t i = 0; i < ranges.size(); ++i) {
                const auto [first, count] = ranges[i];
                INFO("values " << first << " + " << count);
                CHECK(reducer->reduce(queue, input, first, count) ==
                      host_range(reducer->op(), values, first, count));
                chain = {
                    reducer->enqueue_reduce(queue, input, first, count, results, 2 * i + 1, chain)};
            }
            const auto written =
                read_results(target.queue, results, reducer->accumulator(), 2 * ranges.size() + 1);
            for (std::size_t i = 0; i < ranges.size(); ++i) {
                const auto [first, count] = ranges[i];
                INFO("result " << i << ": values " << first << " + " << count);
                CHECK(written[2 * i + 1] == host_range(reducer->op(), values, first, count));
            }
        }
}

TEST_CASE("a thousand reductions chain in the caller's queue with one read at the end", "[api]") {
    // One integer and one floating-point combination per device, path and finish: the chain
    // takes the single launch's two arrival counts in turn a thousand times.
    for (const auto& combination : combinations()) {
        const auto& recipe = combination.recipe;
        if (!((recipe.type == DataType::int32 && recipe.op == Op::sum) ||
              (recipe.type == DataType::float32 && recipe.op == Op::min)))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, recipe);
            REQUIRE(reducer);
            const auto& context = target.queue.context;
            const cl::CommandQueue queue(context, target.queue.device); // no profiling
            const std::uint64_t length = 20011;
            const auto values = random_values(recipe.type, recipe.op, length, 13);
            const auto bytes = length * reducer->value_size();
            const cl::Buffer input(context, CL_MEM_READ_ONLY, bytes);
            // The first reduction waits on the upload's event, the others each on the last.
            cl::Event last;
            queue.enqueueWriteBuffer(input, CL_FALSE, 0, bytes, data_of(values), nullptr, &last);
            const std::size_t chained = 1000;
            const cl::Buffer results(context, CL_MEM_WRITE_ONLY,
                                     chained * reducer->accumulator_size());
            std::mt19937_64 random(17);
            std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
            for (std::size_t i = 0; i < chained; ++i) {
                const auto first = random() % 64;
                const auto count = 1 + random() % (i % 2 == 0 ? 64 : length - first);
                ranges.emplace_back(first, count);
                last = reducer->enqueue_reduce(queue, input, first, count, results, i, {last});
            }
            last.wait();
            const auto written =
                read_results(target.queue, results, reducer->accumulator(), chained);
            int mismatches = 0;
            for (std::size_t i = 0; i < chained; ++i) {
                const auto [first, count] = ranges[i];
                const auto& device = written[i];
                if (device != host_range(recipe.op, values, first, count) && ++mismatches <= 5)
                    FAIL_CHECK("reduction " << i << " of values " << first << " + " << count
                                            << " gave " << to_string(device));
            }
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("a second reducer for the same thing takes the cached program", "[api]") {
    for (auto& target : devices_under_test()) {
        const auto& context = target.queue.context;
        const auto& device = target.queue.device;
        Recipe recipe;
        recipe.type = DataType::uint32;
        recipe.op = Op::max;
        const Reducer first(context, device, recipe);
        const Reducer second(context, device, recipe);
        CHECK(first.program()() == second.program()());
        recipe.op = Op::min;
        CHECK(Reducer(context, device, recipe).program()() != first.program()());
        // Another context of the same device has programs of its own.
        const cl::Context other(device);
        CHECK(Reducer(other, device, {}).program().getInfo<CL_PROGRAM_CONTEXT>()() == other());
    }
}

TEST_CASE("a range past a buffer's end, a wrong type and an out-of-order queue are refused",
          "[api]") {
    for (auto& target : devices_under_test()) {
        const auto reducer = make_reducer(target, {});
        REQUIRE(reducer);
        const auto& queue = target.queue.queue;
        const auto input = upload(target.queue, std::vector<cl_int>(100, 1));
        const cl::Buffer result(target.queue.context, CL_MEM_READ_WRITE, 4 * sizeof(cl_int));
        CHECK(reducer->reduce(queue, input, 95, 5) == Scalar(cl_int{5}));
        CHECK(reducer->reduce(queue, input, 100, 0) == Scalar(cl_int{0}));
        CHECK_THROWS_AS(reducer->reduce(queue, input, 95, 6), Error);
        CHECK_THROWS_AS(reducer->reduce(queue, input, 101, 0), Error);
        CHECK_THROWS_AS(reducer->reduce(queue, input, 1, ~std::uint64_t{0}), Error);
        CHECK_THROWS_AS(reducer->enqueue_reduce(queue, input, 0, 101, result, 0), Error);
        CHECK_THROWS_AS(reducer->enqueue_reduce(queue, input, 0, 100, result, 4), Error);
        CHECK_THROWS_AS(reducer->reduce<cl_float>(queue, input, 0, 100), Error);
        if (!(target.queue.device.getInfo<CL_DEVICE_QUEUE_PROPERTIES>() &
              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
            continue;
        const cl::CommandQueue out_of_order(target.queue.context, target.queue.device,
                                            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        CHECK_THROWS_AS(reducer->reduce(out_of_order, input, 0, 100), Error);
    }
}

TEST_CASE("an OpenCL call that fails inside a reduction throws clreduce::Error with its status",
          "[api]") {
    for (auto& target : devices_under_test()) {
        const auto reducer = make_reducer(target, {});
        REQUIRE(reducer);
        // A queue and a buffer of another context: OpenCL itself refuses the reducer's
        // commands there (CL_INVALID_CONTEXT), which no check of clreduce's catches first.
        const cl::Context other(target.queue.device);
        const cl::CommandQueue other_queue(other, target.queue.device);
        const auto foreign = upload(other, other_queue, std::vector<cl_int>(100, 1));
        try {
            reducer->reduce(other_queue, foreign, 0, 100);
            FAIL("a queue of another context took the reducer's commands");
        } catch (const Error& error) {
            CHECK(error.cause() == Errc::opencl);
            CHECK(error.status() != CL_SUCCESS);
            CHECK_THAT(error.what(), Catch::Contains(cl_error_name(error.status())));
        }
    }
}
