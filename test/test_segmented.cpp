// Reductions per segment and along axes (SegmentedReducer) on every device, against the host
// reference per row, column and segment: every shape class with and without the split into
// chunks, C and Fortran order, CSR segments that are empty, tiny or huge, every op and type.

#include "catch_compat.hpp"
#include "clreduce/reference.hpp"
#include "clreduce/segmented.hpp"
#include "device_targets.hpp"

#include <random>

using namespace clreduce;

namespace {

/// Checks each result against its reference (clreduce's draw makes every float sum exact),
/// naming the first that differs.
void require_matches(const std::vector<Scalar>& results, const std::vector<Reference>& expected) {
    REQUIRE(results.size() == expected.size());
    const auto differs = [&](std::size_t i) { return !same_value(results[i], expected[i].value); };
    std::size_t first = 0;
    while (first < results.size() && !differs(first))
        ++first;
    if (first < results.size())
        FAIL("result " << first << " is " << to_string(results[first]) << ", expected "
                       << to_string(expected[first].value));
}

/// Reduces `shape` of random values along `axes` on the device and on the host.
void check_axes(SegmentedReducer& reducer, const DeviceUnderTest& target, const Recipe& recipe,
                const Shape& shape, const std::vector<int>& axes) {
    const auto values = random_values(recipe.type, recipe.op, shape.values(), 11);
    // An empty array still takes a buffer: OpenCL has none of size 0.
    const auto input = shape.values() == 0 ? cl::Buffer(target.queue.context, CL_MEM_READ_ONLY, 8)
                                           : upload(target.queue, values);
    const auto layout = axis_layout(shape, axes);
    INFO(describe(reducer.plan(layout)));
    const auto result = reducer.reduce_axes(target.queue.queue, input, 0, shape, axes);
    CHECK(result.shape.extents == layout.result.extents);
    CHECK(result.pass_us.size() == reducer.plan(layout).size());
    require_matches(result.values, host_reduce_axes(recipe.op, values, layout));
}

struct AxisCase {
    Shape shape;
    std::vector<int> axes;
};

/// Every shape class: one row, one column, narrow, medium and few long rows, few and many
/// columns (split in chunks or not), primes, the middle axis of 3-D, adjacent axes, Fortran
/// order, an empty axis.
std::vector<AxisCase> telling_axis_cases() {
    using Extents = std::vector<std::uint64_t>;
    std::vector<AxisCase> cases;
    const auto add = [&](Extents extents, std::vector<int> axes, Order order = Order::c) {
        cases.push_back(AxisCase{Shape{std::move(extents), order}, std::move(axes)});
    };
    add({1, 1000}, {1});
    add({1, 1000}, {0});
    add({1000, 1}, {0});
    add({20011, 3}, {1});
    add({100003, 3}, {0});
    add({3, 100003}, {1});
    add({3, 20011}, {0});
    add({257, 255}, {0});
    add({257, 255}, {-1});
    add({64, 4099}, {1});
    add({61, 4099}, {0});
    add({7, 13, 17}, {1});
    add({7, 13, 17}, {0, 1});
    add({7, 13, 17}, {2, 1});
    add({7, 13, 17}, {0, 1, 2});
    add({5, 3, 2, 7}, {2});
    add({2, 0, 3}, {1});
    add({2, 0, 3}, {0});
    add({3000}, {0});
    add({1}, {0});
    add({7, 13, 17}, {1}, Order::fortran);
    add({257, 255}, {0}, Order::fortran);
    add({3, 100003}, {1}, Order::fortran);
    return cases;
}

/// Offsets of `lengths`, from 0.
std::vector<std::uint64_t> offsets_of(const std::vector<std::uint64_t>& lengths) {
    std::vector<std::uint64_t> offsets{0};
    for (const auto length : lengths)
        offsets.push_back(offsets.back() + length);
    return offsets;
}

} // namespace

TEST_CASE("an axis reduction matches the host per row and column in every shape class",
          "[segmented]") {
    for (const auto& combination : combinations()) {
        if (combination.recipe.finish == Finish::last_group)
            continue; // the finish plays no part in a segmented reduction
        SECTION(combination.name()) {
            SegmentedReducer reducer(combination.target->queue.context,
                                     combination.target->queue.device, combination.recipe);
            for (const auto& [shape, axes] : telling_axis_cases()) {
                INFO("shape of rank " << shape.extents.size() << ", " << shape.extents.front()
                                      << " first, axis " << axes.front() << ", order "
                                      << (shape.order == Order::c ? "C" : "Fortran"));
                check_axes(reducer, *combination.target, combination.recipe, shape, axes);
            }
        }
    }
}

TEST_CASE("every op and type reduces along either axis of a matrix", "[segmented]") {
    for (const auto& combination : every_op_and_type()) {
        if (combination.recipe.finish == Finish::last_group ||
            combination.recipe.path != Path::tree)
            continue;
        SECTION(combination.name()) {
            SegmentedReducer reducer(combination.target->queue.context,
                                     combination.target->queue.device, combination.recipe);
            for (const int axis : {0, 1})
                check_axes(reducer, *combination.target, combination.recipe, {{37, 1031}}, {axis});
        }
    }
}

TEST_CASE("CSR segments: empty, tiny, huge, one, none", "[segmented]") {
    std::mt19937_64 random(5);
    std::vector<std::uint64_t> tiny(5000);
    for (auto& length : tiny)
        length = random() % 21; // one in 21 empty
    const std::vector<std::vector<std::uint64_t>> segmentations = {
        tiny, {0, 200000, 0, 300001}, {100003}, {0, 0, 0}, {}};
    for (auto& target : devices_under_test())
        for (const Op op : {Op::sum, Op::max}) {
            Recipe recipe;
            recipe.op = op;
            SegmentedReducer reducer(target.queue.context, target.queue.device, recipe);
            const auto values = random_values(DataType::int32, op, 600000, 3);
            const auto input = upload(target.queue, values);
            for (const auto& lengths : segmentations) {
                const auto offsets = offsets_of(lengths);
                INFO("device '" << target.report.name << "', " << lengths.size() << " segments");
                const cl::Buffer offsets_buffer(target.queue.context, CL_MEM_READ_ONLY,
                                                offsets.size() * sizeof(cl_ulong));
                target.queue.queue.enqueueWriteBuffer(
                    offsets_buffer, CL_TRUE, 0, offsets.size() * sizeof(cl_ulong), offsets.data());
                // From value 1 on: a segment's first value need not be aligned.
                const auto result = reducer.reduce_segments(
                    target.queue.queue, input, 1, offsets.back(), offsets_buffer, lengths.size());
                require_matches(
                    result.values,
                    host_reduce_segments(op, ValuesView(values).part(1, 599999), offsets));
            }
        }
}

TEST_CASE("the enqueued form writes into the caller's buffer at an index and chains by events",
          "[segmented]") {
    for (auto& target : devices_under_test()) {
        const auto& queue = target.queue;
        SegmentedReducer reducer(queue.context, queue.device);
        const Shape shape{{300, 7000}};
        const auto values = random_values(DataType::int32, Op::sum, shape.values(), 2);
        const auto input = upload(queue, values);
        const cl::Buffer results(queue.context, CL_MEM_READ_WRITE, 310 * sizeof(cl_int));
        cl::Event zeroed;
        queue.queue.enqueueFillBuffer(results, cl_int{0}, 0, 310 * sizeof(cl_int), nullptr,
                                      &zeroed);
        reducer.enqueue_reduce_axes(queue.queue, input, 0, shape, {1}, results, 10, {zeroed})
            .wait();
        const auto found = read_results(queue, results, DataType::int32, 310);
        CHECK(std::all_of(found.begin(), found.begin() + 10,
                          [](const Scalar& x) { return x == Scalar{cl_int{0}}; }));
        require_matches({found.begin() + 10, found.end()},
                        host_reduce_axes(Op::sum, values, axis_layout(shape, {1})));
        // Columns read in one launch write at the index too: 300 column sums of 64 rows.
        const Shape columns{{64, 300}};
        const auto column_values = random_values(DataType::int32, Op::sum, columns.values(), 3);
        reducer
            .enqueue_reduce_axes(queue.queue, upload(queue, column_values), 0, columns, {0},
                                 results, 10)
            .wait();
        const auto again = read_results(queue, results, DataType::int32, 310);
        CHECK(std::equal(found.begin(), found.begin() + 10, again.begin())); // left as they were
        require_matches({again.begin() + 10, again.end()},
                        host_reduce_axes(Op::sum, column_values, axis_layout(columns, {0})));
        // 7000 column sums do not fit; the input has no value 1 + 2.1e6.
        CHECK_THROWS_AS(reducer.enqueue_reduce_axes(queue.queue, input, 0, shape, {0}, results, 0),
                        Error);
        CHECK_THROWS_AS(reducer.enqueue_reduce_axes(queue.queue, input, 1, shape, {1}, results, 0),
                        Error);
    }
}
