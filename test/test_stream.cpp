// Device tests of the host-input pipeline: chunks copied through the device buffers in
// turn, and chunks read in place, at chunk sizes that put the boundaries anywhere; whole
// arrays (HostStream) and along axes (AxisStream).

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/stream.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <future>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace clreduce;

TEST_CASE("streamed host input reduces like the host reference at any chunk size",
          "[device][stream]") {
    const std::uint64_t length = 100003;
    for (const auto& combination : combinations_and_wide_loads()) {
        // Every device, path and finish, with one type and op each of integer and float, and
        // a type loaded 16 values at a time.
        const auto& recipe = combination.recipe;
        if (!((recipe.type == DataType::int32 && recipe.op == Op::sum) ||
              (recipe.type == DataType::float64 && recipe.op == Op::max) ||
              (recipe.type == DataType::int8 && recipe.op == Op::sum)))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            for (const bool in_place : {false, true}) {
                HostStream stream(*reducer, combination.target->queue.queue, 0, length, 1000, 11,
                                  in_place);
                // In place, the chunk may be rounded up to keep every chunk's start aligned.
                const auto chunk = stream.chunk();
                CHECK(chunk >= 1000);
                CHECK(chunk < 1000 + reducer->report().base_address_align);
                // Boundaries at odd places, a last chunk of one value, one chunk, a chunk
                // longer than the input.
                for (const std::uint64_t prefix :
                     {length, std::uint64_t{99001}, chunk, chunk - 1, std::uint64_t{1}}) {
                    INFO((in_place ? "read in place" : "copied") << ", length " << prefix);
                    const auto run = stream.reduce(prefix);
                    const auto host =
                        host_reduce(recipe.op, recipe.type, stream.spans(prefix)).value;
                    INFO("device " << to_string(run.reduction.value) << ", host "
                                   << to_string(host));
                    CHECK(run.reduction.value == host);
                    const auto chunks = (prefix + chunk - 1) / chunk;
                    CHECK(run.reduction.pieces == chunks);
                    std::uint64_t streamed = 0;
                    for (std::size_t k = 0; k < run.reduction.pieces; ++k)
                        streamed += run.reduction.passes[k].pass.in;
                    CHECK(streamed == prefix);
                    // The uploads run one after the other on their queue, all of them between
                    // the first upload's start and the result.
                    CHECK((run.upload_us > 0) == !in_place);
                    CHECK(run.end_to_end_us >= run.upload_us);
                }
                CHECK(stream.copy_us(length).has_value() == !in_place);
            }
        }
    }
}

TEST_CASE("values already in host memory stream in place where aligned, else copied",
          "[device][stream]") {
    const std::uint64_t length = 20011;
    for (const auto& combination : combinations()) {
        const auto& recipe = combination.recipe;
        if (!(recipe.type == DataType::int64 && recipe.op == Op::sum))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            // Room to start the values anywhere within the device's buffer alignment, as a
            // mapped file's values start wherever its header ends.
            const auto& device = combination.target->queue.device;
            const auto alignment = device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
            const auto memory = random_values(recipe.type, recipe.op, length + alignment, 5);
            const ValuesView all(memory);
            const auto address = reinterpret_cast<std::uintptr_t>(all.data);
            const auto aligned = (alignment - address % alignment) % alignment / sizeof(cl_long);
            for (const auto first : {aligned, aligned + 1}) {
                const auto values = all.part(first, length);
                HostStream stream(*reducer, combination.target->queue.queue, values, 1000,
                                  reads_in_place(combination.target->report));
                INFO("values from " << first << (stream.in_place() ? ", in place" : ", copied"));
                CHECK(stream.in_place() ==
                      (first == aligned && reads_in_place(combination.target->report)));
                // Copied, the values go through pinned memory, which the driver uploads by DMA.
                CHECK((stream.staging() != nullptr && stream.staging()->pinned()) ==
                      !stream.in_place());
                const auto run = stream.reduce(length);
                CHECK(run.reduction.value == host_reduce(recipe.op, values, length).value);
                CHECK(run.reduction.pieces == (length + stream.chunk() - 1) / stream.chunk());
            }
        }
    }
}

TEST_CASE("a stream hands its staging on to the next, which takes it if large enough",
          "[device][stream]") {
    const std::uint64_t length = 30011;
    for (const auto& combination : combinations()) {
        const auto& recipe = combination.recipe;
        if (!(recipe.type == DataType::int32 && recipe.op == Op::sum))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            const auto memory = random_values(recipe.type, recipe.op, length, 7);
            const ValuesView values(memory);
            const auto& queue = combination.target->queue.queue;
            const auto expected = host_reduce(recipe.op, values, length).value;
            HostStream first(*reducer, queue, values, 1000, false);
            CHECK(first.reduce(length).reduction.value == expected);
            // Smaller chunks fit the staging of larger ones; larger chunks need their own.
            HostStream smaller(*reducer, queue, values, 700, false, first.staging());
            CHECK(smaller.staging() == first.staging());
            CHECK(smaller.reduce(length).reduction.value == expected);
            HostStream larger(*reducer, queue, values, 1500, false, first.staging());
            CHECK(larger.staging() != first.staging());
            CHECK(larger.reduce(length).reduction.value == expected);
        }
    }
}

TEST_CASE("a stream into a wider accumulator keeps every chunk's partials in its buffer",
          "[device][stream]") {
    // int32 summed in int64, as the Python package sums NumPy's int32: the partials are twice
    // the values' size, and the stream's partials buffer must be sized for them.
    const std::uint64_t length = 20011;
    for (const auto& combination : combinations()) {
        auto recipe = combination.recipe;
        if (!(recipe.type == DataType::int32 && recipe.op == Op::sum))
            continue;
        recipe.accumulate = DataType::int64;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            const auto memory = random_values(recipe.type, recipe.op, length, 3);
            const auto expected = host_reduce(recipe.op, memory, length, DataType::int64).value;
            for (const bool in_place : {false, true}) {
                INFO((in_place ? "read in place" : "copied"));
                HostStream stream(*reducer, combination.target->queue.queue, memory, 1000,
                                  in_place);
                CHECK(stream.reduce(length).reduction.value == expected);
            }
        }
    }
}

TEST_CASE("an array streamed along axes gives the host's results, copied or in place, any chunk",
          "[device][stream]") {
    // Chunks of whole blocks (an axis that keeps rows), of rows of a reduced leading axis (their
    // partial arrays combined, argmax's index and a map's i counted along the whole axis), and
    // axes apart (the first step streamed, the later ones reading its partials): each result
    // against the host's reduction of its values.
    Recipe sum, argmax, mapped;
    argmax.type = mapped.type = DataType::int8; // ties: the first index must win
    argmax.op = Op::argmax;
    mapped.op = Op::custom;
    mapped.user = {"a + b", "0", "(accum_t)x * (accum_t)i"};
    mapped.accumulate = DataType::int64;
    std::vector<std::pair<Shape, std::vector<int>>> cases;
    const auto add = [&](std::vector<std::uint64_t> extents, std::vector<int> axes,
                         Order order = Order::c) {
        cases.emplace_back(Shape{std::move(extents), order}, std::move(axes));
    };
    add({100, 37}, {1});
    add({100, 37}, {0});
    add({5, 37, 41}, {1});
    add({100003}, {0});
    add({37, 100}, {1}, Order::fortran);
    add({4, 5, 6}, {0, 2});
    add({6, 5, 7, 3}, {-1, 1});
    add({3, 4, 5}, {0, 2}, Order::fortran);
    for (auto& target : devices_under_test())
        for (const auto& recipe : {sum, argmax, mapped}) {
            INFO("device '" << target.report.name << "', " << name_of(recipe.op));
            SegmentedReducer reducer(target.queue.context, target.queue.device, recipe);
            for (const auto& [shape, axes] : cases) {
                if (axis_steps(shape, axes).size() > 1 && recipe.op == Op::argmax)
                    continue; // refused along axes apart (below)
                const auto values = random_values(recipe.type, Op::sum, shape.values(), 13);
                const auto whole = upload(target.queue, values);
                // Page-aligned, so that a CPU device reads it in place.
                const auto bytes = shape.values() * info(recipe.type).size;
                const std::unique_ptr<void, void (*)(void*)> aligned(
                    std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096), std::free);
                std::memcpy(aligned.get(), ValuesView(values).data, bytes);
                const ValuesView view(recipe.type, aligned.get(), shape.values(), Origin::drawn);
                // The reducer's own on the whole buffer, itself checked against the host.
                const auto expected =
                    reducer.reduce_axes(target.queue.queue, whole, 0, shape, axes);
                if (recipe.op == Op::sum)
                    for (std::size_t k = 0; k < expected.values.size(); ++k)
                        REQUIRE(
                            same_value(expected.values[k],
                                       host_reduce_axes(Op::sum, values, shape, axes)[k].value));
                for (const std::uint64_t chunk : {1, 100, 3700, 1000000})
                    for (const bool in_place : {false, true}) {
                        if (chunk == 1 && shape.values() > 10000)
                            continue; // a launch a value: the small shapes show it
                        INFO("rank " << shape.extents.size() << ", " << shape.values()
                                     << " values, chunk " << chunk
                                     << (in_place ? ", in place" : ", copied"));
                        AxisStream stream(reducer, target.queue.queue, view, chunk, in_place);
                        const auto streamed = stream.reduce_axes(shape, axes);
                        CHECK(stream.in_place() == (in_place && reads_in_place(target.report)));
                        CHECK(streamed.shape.extents == expected.shape.extents);
                        REQUIRE(streamed.values.size() == expected.values.size());
                        for (std::size_t k = 0; k < expected.values.size(); ++k)
                            REQUIRE(same_value(streamed.values[k], expected.values[k]));
                        CHECK(streamed.indices == expected.indices);
                    }
            }
        }
}

TEST_CASE("an array streamed along axes hands its staging on, and refuses what the reducer "
          "refuses",
          "[device][stream]") {
    for (auto& target : devices_under_test()) {
        Recipe argmax;
        argmax.op = Op::argmax;
        SegmentedReducer sums(target.queue.context, target.queue.device, {});
        SegmentedReducer argmaxes(target.queue.context, target.queue.device, argmax);
        const auto values = random_values(DataType::int32, Op::sum, 120, 3);
        AxisStream first(sums, target.queue.queue, values, 24, false);
        first.reduce_axes({{4, 5, 6}}, {2});
        AxisStream next(sums, target.queue.queue, values, 12, false, first.staging());
        next.reduce_axes({{4, 5, 6}}, {2});
        CHECK(next.staging() == first.staging());
        const auto refused = [&](SegmentedReducer& reducer, const Shape& shape,
                                 const std::vector<int>& axes) {
            AxisStream stream(reducer, target.queue.queue, values, 24, false);
            try {
                stream.reduce_axes(shape, axes);
            } catch (const Error& error) {
                return std::optional(error.cause());
            }
            return std::optional<Errc>();
        };
        CHECK(refused(sums, {{4, 5, 7}}, {2}) == Errc::invalid_argument); // 140 values, not 120
        CHECK(refused(sums, {{4, 5, 6}}, {3}) == Errc::invalid_argument);
        CHECK(refused(argmaxes, {{4, 5, 6}}, {0, 2}) == Errc::unsupported);
    }
}

TEST_CASE("chunks read in place start aligned and none is longer than the input", "[stream]") {
    // 65537 int32 values would put the second chunk 4 bytes past an aligned start.
    CHECK(layout_chunk(65537, 1000003, 32) == 65568);
    CHECK(layout_chunk(65537, 1000003, 1) == 65537);
    CHECK(layout_chunk(5, 1000, 32) == 32);
    CHECK(layout_chunk(5000, 1000, 32) == 1000);
    CHECK(layout_chunk(1000, 1000, 32) == 1000);
}

TEST_CASE("the parallel copy copies every byte, from any number of threads at once", "[stream]") {
    // Lengths of no part, one part, parts and a last shorter one, on the host's copy threads.
    const std::vector<std::size_t> lengths{0, 1, 4095, (std::size_t{1} << 20) + 3,
                                           (std::size_t{5} << 20) + 12345};
    const auto copied_right = [&](unsigned char seed) {
        for (const auto length : lengths) {
            std::vector<unsigned char> from(length);
            for (std::size_t i = 0; i < length; ++i)
                from[i] = static_cast<unsigned char>(i * 7 + seed);
            std::vector<unsigned char> to(length + 1, 0xAB); // one byte past the end stays
            copy_in_parallel(to.data(), from.data(), length);
            if (!std::equal(from.begin(), from.end(), to.begin()) || to[length] != 0xAB)
                return false;
        }
        return true;
    };
    std::vector<std::future<bool>> callers;
    for (unsigned char seed = 0; seed < 4; ++seed)
        callers.push_back(std::async(std::launch::async, copied_right, seed));
    for (auto& caller : callers)
        CHECK(caller.get());
}

TEST_CASE("a child forked after the copy threads started copies without them", "[stream]") {
    const std::vector<unsigned char> from(std::size_t{3} << 20, 7);
    std::vector<unsigned char> to(from.size());
    copy_in_parallel(to.data(), from.data(), from.size()); // starts the threads
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        alarm(10); // a copy that waits for the parent's threads ends here, killed
        std::vector<unsigned char> copy(from.size());
        copy_in_parallel(copy.data(), from.data(), from.size());
        _exit(copy == from ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a stream's chunk is never longer than its input", "[device][stream]") {
    for (const auto& combination : combinations()) {
        const auto& recipe = combination.recipe;
        if (recipe.type != DataType::int32 || recipe.op != Op::sum ||
            recipe.finish != Finish::passes)
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            for (const bool in_place : {false, true}) {
                INFO((in_place ? "read in place" : "copied"));
                CHECK(HostStream(*reducer, combination.target->queue.queue, 0, 1000, 5000, 11,
                                 in_place)
                          .chunk() == 1000);
                const auto chunk = HostStream(*reducer, combination.target->queue.queue, 0, 1000003,
                                              65537, 11, in_place)
                                       .chunk();
                if (in_place)
                    CHECK(chunk * 4 % reducer->report().base_address_align == 0);
                else
                    CHECK(chunk == 65537);
            }
        }
    }
}
