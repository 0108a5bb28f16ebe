// Device tests of the host-input pipeline: chunks copied through the device buffers in
// turn, and chunks read in place, at chunk sizes that put the boundaries anywhere.

#include "catch_compat.hpp"
#include "clreduce/reference.hpp"
#include "clreduce/stream.hpp"
#include "device_targets.hpp"

using namespace clreduce;

TEST_CASE("streamed host input reduces like the host reference at any chunk size",
          "[device][stream]") {
    const std::uint64_t length = 100003;
    for (const auto& combination : combinations()) {
        // Every device, path and finish, with one type and op each of integer and float.
        const auto& recipe = combination.recipe;
        if (!((recipe.type == DataType::int32 && recipe.op == Op::sum) ||
              (recipe.type == DataType::float64 && recipe.op == Op::max)))
            continue;
        DYNAMIC_SECTION(combination.name()) {
            const auto reducer = make_reducer(*combination.target, recipe);
            REQUIRE(reducer);
            for (const bool in_place : {false, true}) {
                HostStream stream(*reducer, 0, length, 1000, 11, in_place);
                // Boundaries at odd places, a last chunk of one value, one chunk, a chunk
                // longer than the input.
                for (const std::uint64_t prefix :
                     {length, std::uint64_t{99001}, std::uint64_t{1000}, std::uint64_t{999},
                      std::uint64_t{1}}) {
                    INFO((in_place ? "read in place" : "copied") << ", length " << prefix);
                    const auto run = stream.reduce(prefix);
                    const auto host =
                        host_reduce(recipe.op, recipe.type, stream.spans(prefix)).value;
                    INFO("device " << to_string(run.reduction.value) << ", host "
                                   << to_string(host));
                    CHECK(run.reduction.value == host);
                    CHECK(run.reduction.pieces == (prefix + 999) / 1000);
                    CHECK(run.end_to_end_us >= run.reduction.span_us);
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
                HostStream stream(*reducer, values, 1000, true);
                INFO("values from " << first << (stream.in_place() ? ", in place" : ", copied"));
                CHECK(stream.in_place() ==
                      (first == aligned && reads_in_place(combination.target->report)));
                const auto run = stream.reduce(length);
                CHECK(run.reduction.value == host_reduce(recipe.op, values, length).value);
                CHECK(run.reduction.pieces == 21);
            }
        }
    }
}
