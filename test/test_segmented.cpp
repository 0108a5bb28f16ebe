// Reductions per segment and along axes (SegmentedReducer) on every device, against the host
// reference per row, column and segment: every shape class with and without the split into
// chunks, C and Fortran order, CSR segments that are empty, tiny or huge, every op and type.

#include "catch_compat.hpp"
#include "clreduce/segmented.hpp"
#include "detail/measure.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <limits>
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

/// Checks the values and, for argmin and argmax, the indices against the references.
void require_matches(const SegmentedResult& result, const std::vector<Reference>& expected) {
    require_matches(result.values, expected);
    std::vector<std::int64_t> indices;
    for (const auto& reference : expected)
        if (reference.index)
            indices.push_back(*reference.index);
    CHECK(result.indices == indices);
}

/// Reduces `shape` of random values along `axes` on the device and on the host.
void check_axes(SegmentedReducer& reducer, const DeviceUnderTest& target, const Recipe& recipe,
                const Shape& shape, const std::vector<int>& axes) {
    const auto values = random_values(recipe.type, recipe.op, shape.values(), 11);
    // An empty array still takes a buffer: OpenCL has none of size 0.
    const auto input = shape.values() == 0 ? cl::Buffer(target.queue.context, CL_MEM_READ_ONLY, 8)
                                           : upload(target.queue, values);
    const auto steps = axis_steps(shape, axes);
    std::string plans;
    std::size_t launches = 0;
    for (const auto& step : steps) {
        plans += describe(reducer.plan(step));
        launches += reducer.plan(step).size();
    }
    INFO(plans);
    const auto result = reducer.reduce_axes(target.queue.queue, input, 0, shape, axes);
    CHECK(result.shape.extents == steps.back().result.extents);
    CHECK(result.pass_us.size() == launches);
    require_matches(result, host_reduce_axes(recipe.op, values, shape, axes));
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
    add({200, 45}, {1});  // rows in teams of 4 work-items (on a CPU of 2 cores or more too)
    add({150, 17}, {-1}); // teams of 2, a work-item's share one value longer than its neighbour's
    add({100, 64}, {1});  // rows of aligned loads, read as vectors where tuned so
    add({61, 4099}, {0});
    add({7, 13, 17}, {1});
    add({3, 2, 300}, {1}); // columns of 2 rows in blocks, the last tile of each part-full
    add({2, 20011}, {0});
    add({5, 4100}, {0});    // strips of columns: four rows, then one; the last tile part full
    add({2, 2048}, {0});    // strips of columns: two rows
    add({3, 3, 1024}, {1}); // strips of columns in blocks: two rows, then one
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

/// Axes apart in memory, reduced one run after another: the middle axis kept, runs of two,
/// Fortran order, an empty axis, rows then split columns, columns then rows.
std::vector<AxisCase> apart_axis_cases() {
    using Extents = std::vector<std::uint64_t>;
    std::vector<AxisCase> cases;
    const auto add = [&](Extents extents, std::vector<int> axes, Order order = Order::c) {
        cases.push_back(AxisCase{Shape{std::move(extents), order}, std::move(axes)});
    };
    add({7, 13, 17}, {0, 2});
    add({7, 13, 17}, {2, 0}, Order::fortran);
    add({5, 3, 2, 7}, {1, 3});
    add({5, 3, 2, 7}, {0, 1, 3});
    add({5, 3, 2, 7}, {0, 2});
    add({2, 0, 3}, {0, 2});
    add({4099, 2, 3}, {0, 2});
    add({61, 7, 4099}, {0, -1});
    add({3, 1, 20011, 2}, {0, 2});
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
            auto cases = telling_axis_cases();
            for (auto& apart : apart_axis_cases())
                cases.push_back(std::move(apart));
            for (const auto& [shape, axes] : cases) {
                INFO("shape of rank " << shape.extents.size() << ", " << shape.extents.front()
                                      << " first, axis " << axes.front() << ", order "
                                      << (shape.order == Order::c ? "C" : "Fortran"));
                check_axes(reducer, *combination.target, combination.recipe, shape, axes);
            }
        }
    }
}

TEST_CASE("every op and type reduces along axes, in work-groups that loop over tiles or not",
          "[segmented]") {
    SegmentTuning looping; // a launch of one work-group per compute unit: most loop
    looping.launched_groups_per_unit = 1;
    looping.batched_tiles = 4; // narrow rows and columns: the batched kernels (a GPU's)
    looping.strip_rows_below = std::uint64_t{1} << 40; // strips of columns wherever they fit,
    looping.fewest_strip_tiles = 1;                    // whatever the device's compute units
    looping.contiguous_items = 1;                      // the GPUs' plans, on a CPU too
    SegmentTuning small_groups = looping;  // rows in teams (8 values a work-item, as a GPU's),
    small_groups.values_per_team_item = 8; // in work-groups of 8 (a GPU's 64)
    small_groups.team_group_size = 8;
    SegmentTuning vectors = small_groups; // narrow rows read as vectors (a GPU's), in
    vectors.vector_loads_below = 17;      // work-groups of 8: rows of up to 8 loads
    SegmentTuning runs = looping;         // a CPU's contiguous runs: uneven strips split, looping
    runs.contiguous_items = 0;
    runs.column_run = 7;
    for (const auto& combination : every_op_and_type()) {
        if (combination.recipe.finish == Finish::last_group ||
            combination.recipe.path != Path::tree)
            continue;
        SECTION(combination.name()) {
            const auto& queue = combination.target->queue;
            SegmentedReducer reducer(queue.context, queue.device, combination.recipe);
            for (const int axis : {0, 1})
                check_axes(reducer, *combination.target, combination.recipe, {{37, 1031}}, {axis});
            // Many rows: on a CPU, a work-item per row; rows of 48 values, on a CPU read as
            // vectors (but argmin's and argmax's), 3 to 12 loads as the type's values are wide.
            check_axes(reducer, *combination.target, combination.recipe, {{1031, 37}}, {1});
            check_axes(reducer, *combination.target, combination.recipe, {{301, 48}}, {1});
            SegmentedReducer looping_reducer(queue.context, queue.device, combination.recipe,
                                             looping);
            for (const auto& [shape, axes] : telling_axis_cases()) {
                INFO("looping over tiles: shape of rank "
                     << shape.extents.size() << ", " << shape.extents.front() << " first, axis "
                     << axes.front());
                check_axes(looping_reducer, *combination.target, combination.recipe, shape, axes);
            }
            SegmentedReducer small_reducer(queue.context, queue.device, combination.recipe,
                                           small_groups);
            CHECK(small_reducer.plan(axis_layout(Shape{{3, 500, 40}}, {2}))[0].work_group_size ==
                  8);
            check_axes(small_reducer, *combination.target, combination.recipe, {{3, 500, 40}}, {2});
            check_axes(small_reducer, *combination.target, combination.recipe, {{1031, 37}}, {1});
            SegmentedReducer vector_reducer(queue.context, queue.device, combination.recipe,
                                            vectors);
            // Rows of 1 to 8 loads of every type (4 to 128 values), a tile's last rows missing,
            // and rows of 40 values, which are not a power of two of loads, in teams.
            const bool leads = info(combination.recipe.op).indexed; // argmin's, argmax's values
            CHECK(vector_reducer.plan(axis_layout(Shape{{1031, 32}}, {1}))[0].vectors ==
                  (leads ? 0 : 32 / info(combination.recipe.type).values_per_load()));
            for (const std::uint64_t columns : {4, 8, 16, 32, 64, 128, 40})
                check_axes(vector_reducer, *combination.target, combination.recipe,
                           {{1031, columns}}, {1});
            check_axes(vector_reducer, *combination.target, combination.recipe, {{3, 5, 8, 8}},
                       {2, 3});
            SegmentedReducer runs_reducer(queue.context, queue.device, combination.recipe, runs);
            check_axes(runs_reducer, *combination.target, combination.recipe, {{3, 500, 40}}, {1});
            check_axes(runs_reducer, *combination.target, combination.recipe, {{2, 30011}}, {1});
            if (info(combination.recipe.op).indexed)
                continue; // NumPy's argmin and argmax take one axis
            for (const auto& [shape, axes] : apart_axis_cases()) {
                INFO("axes apart: shape of rank " << shape.extents.size() << ", "
                                                  << shape.extents.front() << " first");
                check_axes(reducer, *combination.target, combination.recipe, shape, axes);
            }
        }
    }
}

TEST_CASE("a user's op and map along axes: each result's values in index order, i along the axis",
          "[segmented]") {
    // np.sum(x * index along the axis) and np.max(x + index) per result, the index counted
    // along the reduced axes (over two adjacent ones, and over axes apart, in memory order:
    // the first step launched once for each group of blocks that shares an index base).
    struct UserCase {
        Expressions user;
        std::int64_t identity;
        std::int64_t (*combine)(std::int64_t, std::int64_t);
        std::int64_t (*map)(std::int64_t x, std::int64_t i);
    };
    const UserCase cases[] = {
        {{"a + b", "0", "(accum_t)x * (accum_t)i"},
         0,
         [](std::int64_t a, std::int64_t b) { return a + b; },
         [](std::int64_t x, std::int64_t i) { return x * i; }},
        {{"max(a, b)", "LONG_MIN", "(accum_t)x + (accum_t)i"},
         std::numeric_limits<std::int64_t>::min(),
         [](std::int64_t a, std::int64_t b) { return std::max(a, b); },
         [](std::int64_t x, std::int64_t i) { return x + i; }},
    };
    for (auto& target : devices_under_test())
        for (const auto& user_case : cases) {
            INFO("device '" << target.report.name << "', op " << user_case.user.reduce);
            Recipe recipe;
            recipe.type = DataType::int8; // products with i far from int64's limits
            recipe.op = Op::custom;
            recipe.user = user_case.user;
            recipe.accumulate = DataType::int64;
            SegmentTuning strips; // strips of columns wherever they fit (a GPU's, not a CPU's)
            strips.strip_rows_below = std::uint64_t{1} << 40;
            strips.fewest_strip_tiles = 1;
            strips.contiguous_items = 1;    // a CPU planned as a GPU
            strips.vector_loads_below = 17; // and rows read as vectors (of 64 int8: 4 loads)
            strips.team_group_size = 8;
            SegmentedReducer reducer(target.queue.context, target.queue.device, recipe, strips);
            auto every_case = telling_axis_cases();
            for (auto& apart : apart_axis_cases())
                every_case.push_back(std::move(apart));
            for (const auto& [shape, axes] : every_case) {
                INFO("shape of rank " << shape.extents.size() << ", " << shape.extents.front()
                                      << " first, axes " << axes.front() << " ... " << axes.back());
                const auto values = random_values(DataType::int8, Op::sum, shape.values(), 5);
                const auto& x = std::get<std::vector<std::int8_t>>(values);
                std::vector<Scalar> expected;
                const auto offsets = axis_offsets(shape, axes);
                for (const auto first : offsets.results) {
                    auto result = user_case.identity;
                    for (std::size_t r = 0; r < offsets.reduced.size(); ++r)
                        result =
                            user_case.combine(result, user_case.map(x[first + offsets.reduced[r]],
                                                                    static_cast<std::int64_t>(r)));
                    expected.push_back(result);
                }
                const auto input = shape.values() == 0
                                       ? cl::Buffer(target.queue.context, CL_MEM_READ_ONLY, 8)
                                       : upload(target.queue, values);
                const auto result = reducer.reduce_axes(target.queue.queue, input, 0, shape, axes);
                REQUIRE(result.values.size() == expected.size());
                for (std::size_t k = 0; k < expected.size(); ++k)
                    if (!same_value(result.values[k], expected[k]))
                        FAIL("result " << k << " is " << to_string(result.values[k])
                                       << ", expected " << to_string(expected[k]));
            }
        }
}

TEST_CASE("argmin and argmax along axes apart are unsupported: their index counts along one run",
          "[segmented]") {
    for (auto& target : devices_under_test()) {
        Recipe argmin, argmax;
        argmin.op = Op::argmin;
        argmax.op = Op::argmax;
        for (const auto& recipe : {argmin, argmax}) {
            SegmentedReducer reducer(target.queue.context, target.queue.device, recipe);
            const auto input = upload(target.queue, random_values(recipe.type, recipe.op, 24, 1));
            try {
                reducer.reduce_axes(target.queue.queue, input, 0, Shape{{2, 3, 4}}, {0, 2});
                FAIL("accepted");
            } catch (const Error& error) {
                CHECK(error.cause() == Errc::unsupported);
            }
        }
    }
}

TEST_CASE("a leading axis in chunks, their partial arrays combined, gives the whole axis's "
          "results and indices",
          "[segmented]") {
    // Chunks of rows of a 1000 x 37 int8 matrix, full of ties, each reduced along axis 0 with
    // its indices counted from its first row (index_base), then enqueue_combine_axes of the
    // partial arrays: what --host-input streams. argmax's first index and a map over i must
    // come out as the whole axis's.
    Recipe argmax, mapped;
    argmax.type = mapped.type = DataType::int8;
    argmax.op = Op::argmax;
    mapped.op = Op::custom;
    mapped.user = {"a + b", "0", "(accum_t)x * (accum_t)i"};
    mapped.accumulate = DataType::int64;
    constexpr std::uint64_t rows = 1000, inner = 37;
    for (auto& target : devices_under_test())
        for (const auto& recipe : {argmax, mapped}) {
            INFO("device '" << target.report.name << "', " << name_of(recipe.op));
            const auto& queue = target.queue;
            SegmentedReducer reducer(queue.context, queue.device, recipe);
            const auto values = random_values(recipe.type, Op::sum, rows * inner, 9);
            const auto whole = upload(queue, values);
            const auto expected = reducer.reduce_axes(queue.queue, whole, 0, {{rows, inner}}, {0});
            for (const std::uint64_t chunk_rows : {1, 7, 333, 1000}) {
                INFO(chunk_rows << " rows a chunk");
                const auto chunks = (rows + chunk_rows - 1) / chunk_rows;
                const cl::Buffer partials(queue.context, CL_MEM_READ_WRITE,
                                          chunks * inner * reducer.accumulator_size());
                for (std::uint64_t k = 0; k < chunks; ++k)
                    reducer.enqueue_reduce_axes(
                        queue.queue, whole, k * chunk_rows * inner,
                        {{std::min(chunk_rows, rows - k * chunk_rows), inner}}, {0}, partials,
                        k * inner, {}, nullptr, k * chunk_rows);
                const cl::Buffer results(queue.context, CL_MEM_READ_WRITE,
                                         inner * reducer.accumulator_size());
                reducer.enqueue_combine_axes(queue.queue, partials, 0, {{chunks, inner}}, {0},
                                             results, 0);
                std::vector<unsigned char> bytes(inner * reducer.accumulator_size());
                queue.queue.enqueueReadBuffer(results, CL_TRUE, 0, bytes.size(), bytes.data());
                SegmentedResult combined;
                reducer.append_results(combined, bytes.data(), inner);
                REQUIRE(combined.values.size() == expected.values.size());
                for (std::size_t k = 0; k < inner; ++k)
                    CHECK(same_value(combined.values[k], expected.values[k]));
                CHECK(combined.indices == expected.indices);
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
        for (const Op op : {Op::sum, Op::max, Op::argmax}) {
            Recipe recipe;
            recipe.op = op;
            // max's work-groups loop over several tiles each; sum's few long segments are cut
            // in 32 chunks or more (empty segments' chunks too), whose partials a second launch
            // reduces; argmax's take the defaults (one long segment: a chunk a work-group).
            SegmentTuning looping;
            looping.launched_groups_per_unit = op == Op::max ? 1 : 0;
            looping.work_groups_per_unit = op == Op::sum ? 64 : 0;
            SegmentedReducer reducer(target.queue.context, target.queue.device, recipe, looping);
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
                    result, host_reduce_segments(op, ValuesView(values).part(1, 599999), offsets));
                for (std::size_t s = 0; s < lengths.size() && op == Op::argmax; ++s)
                    if (lengths[s] == 0)
                        CHECK(result.indices[s] == no_index);
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

TEST_CASE("strips of columns read and write values that are not aligned one at a time",
          "[segmented]") {
    // The strips' vector loads and stores need the input's first value and the first result
    // at a multiple of the strip; elsewhere each value is read and written alone.
    Recipe sum, argmax;
    argmax.type = DataType::float32;
    argmax.op = Op::argmax;
    SegmentTuning strips;
    strips.strip_rows_below = std::uint64_t{1} << 40;
    strips.fewest_strip_tiles = 1;
    strips.contiguous_items = 1; // a CPU planned as a GPU
    const Shape shape{{5, 2052}};
    for (auto& target : devices_under_test())
        for (const auto& recipe : {sum, argmax}) {
            const auto& queue = target.queue;
            SegmentedReducer reducer(queue.context, queue.device, recipe, strips);
            INFO("device '" << target.report.name << "', " << name_of(recipe.op) << ", plan "
                            << describe(reducer.plan(axis_layout(shape, {0}))));
            const auto values = random_values(recipe.type, recipe.op, shape.values() + 3, 4);
            const ValuesView all(values);
            const auto input = upload(queue, values);
            const auto size = reducer.accumulator_size();
            const cl::Buffer results(queue.context, CL_MEM_READ_WRITE, (2052 + 3) * size);
            for (const std::uint64_t first : {0, 1, 3})
                for (const std::uint64_t index : {0, 2}) {
                    INFO("first value " << first << ", first result " << index);
                    reducer.enqueue_reduce_axes(queue.queue, input, first, shape, {0}, results,
                                                index);
                    std::vector<unsigned char> bytes(2052 * size);
                    queue.queue.enqueueReadBuffer(results, CL_TRUE, index * size, bytes.size(),
                                                  bytes.data());
                    SegmentedResult found;
                    reducer.append_results(found, bytes.data(), 2052);
                    require_matches(found,
                                    host_reduce_axes(recipe.op, all.part(first, shape.values()),
                                                     axis_layout(shape, {0})));
                }
        }
}

TEST_CASE("rows are read as vectors only from a value at a multiple of a load", "[segmented]") {
    // A user's map of the index, i along the row, so that a row read from the wrong place or
    // counted from the wrong value fails: sum(x * i) per row of int32, in int64.
    Recipe recipe;
    recipe.op = Op::custom;
    recipe.user = {"a + b", "0", "(accum_t)x * (accum_t)i"};
    recipe.accumulate = DataType::int64;
    SegmentTuning vectors;
    vectors.vector_loads_below = 17;
    vectors.team_group_size = 8;
    vectors.contiguous_items = 1; // a CPU planned as a GPU
    const Shape shape{{301, 16}};
    const auto layout = axis_layout(shape, {1});
    for (auto& target : devices_under_test()) {
        const auto& queue = target.queue;
        SegmentedReducer reducer(queue.context, queue.device, recipe, vectors);
        const auto values = random_values(DataType::int32, Op::sum, shape.values() + 5, 6);
        const auto& x = std::get<std::vector<std::int32_t>>(values);
        const auto input = upload(queue, values);
        const cl::Buffer results(queue.context, CL_MEM_READ_WRITE, 301 * sizeof(cl_long));
        for (const std::uint64_t first : {0, 1, 4, 5}) {
            INFO("device '" << target.report.name << "', first value " << first);
            CHECK((reducer.plan(layout, first)[0].vectors > 0) == (first % 4 == 0));
            reducer.enqueue_reduce_axes(queue.queue, input, first, shape, {1}, results, 0);
            const auto found = read_results(queue, results, DataType::int64, 301);
            for (std::size_t row = 0; row < 301; ++row) {
                std::int64_t sum = 0;
                for (std::int64_t i = 0; i < 16; ++i)
                    sum += x[first + row * 16 + static_cast<std::size_t>(i)] * i;
                if (!(found[row] == Scalar{static_cast<cl_long>(sum)}))
                    FAIL("row " << row << " is " << to_string(found[row]) << ", expected " << sum);
            }
        }
    }
}

TEST_CASE("the in-order check of an axis gives each result's own in-order fold, all at once",
          "[segmented]") {
    // A user's sum of x * i in int64 (exact), and argmax of a map of i (its index): the runs
    // folded at once against each result's values folded alone (reduce_in_order()); rows,
    // columns, and rows longer than in_order_block, which are folded alone.
    Recipe custom;
    custom.type = DataType::int8;
    custom.op = Op::custom;
    custom.user = {"a + b", "0", "(accum_t)x * (accum_t)i"};
    custom.accumulate = DataType::int64;
    Recipe argmax;
    argmax.type = DataType::int32;
    argmax.op = Op::argmax;
    argmax.user.map = "x % 7 + (int)(i % 3)";
    const AxisCase cases[] = {{Shape{{300, 64}}, {1}},
                              {Shape{{64, 300}}, {0}},
                              {Shape{{3, 5000}}, {1}},
                              {Shape{{5, 3, 7}}, {1}}};
    for (auto& target : devices_under_test())
        for (const auto& recipe : {custom, argmax}) {
            Reducer reducer(target.queue.context, target.queue.device, recipe);
            for (const auto& [shape, axes] : cases) {
                INFO("device '" << target.report.name << "', " << name_of(recipe.op)
                                << ", shape of " << shape.extents.front() << " first, axis "
                                << axes.front());
                const auto values = random_values(recipe.type, Op::sum, shape.values(), 8);
                const auto at_once =
                    in_order_axis_references(reducer, target.queue.queue, values, shape, axes);
                const auto alone =
                    axis_references(values, shape, axes, [&](const ValuesView& segment) {
                        return reference_for(reducer, target.queue.queue, {segment});
                    });
                REQUIRE(at_once.size() == alone.size());
                for (std::size_t k = 0; k < alone.size(); ++k) {
                    CHECK(at_once[k].in_order);
                    CHECK(same_value(at_once[k].value, alone[k].value));
                    CHECK(at_once[k].index == alone[k].index);
                }
            }
        }
}

namespace {

/// argmin's or argmax's indices of `values` (float32, of `shape`) along `axis`.
std::vector<std::int64_t> arg_indices(const DeviceUnderTest& target, Op op,
                                      const std::vector<float>& values, const Shape& shape,
                                      int axis) {
    Recipe recipe;
    recipe.type = DataType::float32;
    recipe.op = op;
    SegmentedReducer reducer(target.queue.context, target.queue.device, recipe);
    const auto input = upload(target.queue, HostValues(values));
    const auto result = reducer.reduce_axes(target.queue.queue, input, 0, shape, {axis});
    const auto layout = axis_layout(shape, {axis});
    require_matches(result, host_reduce_axes(op, HostValues(values), layout));
    return result.indices;
}

} // namespace

TEST_CASE("argmin and argmax along an axis give NumPy's first index: ties, NaN, -0",
          "[segmented]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // np.argmax(a, axis=1) is [1, 0, 0, 4], np.argmin [3, 0, 0, 4]; along axis 0 [1, 0, 1, 3, 3]
    // and [1, 3, 1, 0, 3].
    const std::vector<float> matrix = {1, 3, 3, 0, 3, nan,   1, nan, 5, 5,
                                       2, 2, 2, 2, 2, -0.0f, 0, -1,  7, nan};
    const Shape shape{{4, 5}};
    for (auto& target : devices_under_test()) {
        INFO("device '" << target.report.name << "'");
        using Indices = std::vector<std::int64_t>;
        CHECK(arg_indices(target, Op::argmax, matrix, shape, 1) == Indices{1, 0, 0, 4});
        CHECK(arg_indices(target, Op::argmin, matrix, shape, 1) == Indices{3, 0, 0, 4});
        CHECK(arg_indices(target, Op::argmax, matrix, shape, 0) == Indices{1, 0, 1, 3, 3});
        CHECK(arg_indices(target, Op::argmin, matrix, shape, 0) == Indices{1, 3, 1, 0, 3});
        // The same matrix in Fortran order is its transpose: rows become columns.
        CHECK(arg_indices(target, Op::argmax, matrix, {{5, 4}, Order::fortran}, 0) ==
              Indices{1, 0, 0, 4});
    }
}

TEST_CASE("argmax of long rows and columns split in chunks takes the first of two extremes",
          "[segmented]") {
    // Three rows (or columns) of 100003 zeros with 5 at 90000 and at 70000 + k: few long rows
    // and few columns, both split among work-groups, and their partials reduced again.
    constexpr std::uint64_t length = 100003;
    for (auto& target : devices_under_test())
        for (const bool rows : {true, false}) {
            INFO("device '" << target.report.name << "', " << (rows ? "rows" : "columns"));
            std::vector<float> values(3 * length, 0.0f);
            const auto at = [&](std::uint64_t k, std::uint64_t r) -> float& {
                return values[rows ? k * length + r : r * 3 + k];
            };
            for (std::uint64_t k = 0; k < 3; ++k)
                at(k, 90000) = at(k, 70000 + k) = 5;
            const Shape shape{rows ? std::vector<std::uint64_t>{3, length}
                                   : std::vector<std::uint64_t>{length, 3}};
            CHECK(arg_indices(target, Op::argmax, values, shape, rows ? 1 : 0) ==
                  std::vector<std::int64_t>{70000, 70001, 70002});
        }
}

TEST_CASE("argmin and argmax along every shape class match the host's first index", "[segmented]") {
    for (auto& target : devices_under_test())
        for (const Op op : {Op::argmin, Op::argmax}) {
            Recipe recipe;
            recipe.type = DataType::int8; // few values: many ties
            recipe.op = op;
            SegmentedReducer reducer(target.queue.context, target.queue.device, recipe);
            for (const auto& [shape, axes] : telling_axis_cases()) {
                INFO("device '" << target.report.name << "', " << name_of(op) << ", rank "
                                << shape.extents.size() << ", " << shape.extents.front()
                                << " first, axis " << axes.front());
                check_axes(reducer, target, recipe, shape, axes);
            }
        }
}
