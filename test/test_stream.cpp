// Device tests of the host-input pipeline: chunks copied through the device buffers in
// turn, and chunks read in place, at chunk sizes that put the boundaries anywhere.

#include "catch_compat.hpp"
#include "clreduce/stream.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <algorithm>
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
