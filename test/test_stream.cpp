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
