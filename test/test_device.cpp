// Device tests: the reduction on every device found, against the host reference.

#include "catch_compat.hpp"
#include "clreduce/reference.hpp"
#include "device_targets.hpp"

#include <climits>
#include <iterator>
#include <stdexcept>

using namespace clreduce;

namespace {

bool is_prime(std::uint64_t n) {
    if (n < 2)
        return false;
    for (std::uint64_t d = 2; d * d <= n; ++d)
        if (n % d == 0)
            return false;
    return true;
}

std::uint64_t next_prime(std::uint64_t n) {
    while (!is_prime(++n)) {
    }
    return n;
}

/// The shortest length whose last pass reads exactly two values.
std::uint64_t last_pass_of_two(const Reducer& reducer) {
    for (std::uint64_t length = 2;; ++length)
        if (reducer.plan(length).back().in == 2)
            return length;
}

/// The lengths that break reductions: tiny ones, one work-group's worth and its
/// neighbours, primes above it, a last pass of two values, and a long odd one.
std::vector<std::uint64_t> telling_lengths(const Reducer& reducer) {
    const auto factor = reducer.shape().values_per_work_group();
    return {1,
            2,
            3,
            255,
            256,
            257,
            factor - 1,
            factor,
            factor + 1,
            next_prime(factor),
            next_prime(3 * factor),
            last_pass_of_two(reducer),
            (std::uint64_t{1} << 20) + 7};
}

/// Reads the whole input buffer back.
std::vector<cl_int> read_back(const DeviceQueue& queue, const cl::Buffer& buffer,
                              std::size_t length) {
    std::vector<cl_int> values(length);
    queue.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, length * sizeof(cl_int), values.data());
    return values;
}

} // namespace

TEST_CASE("every device reduces the telling lengths like the host reference", "[device]") {
    // The tuned shape, the textbook one (which runs every pass), and tiny work-groups that
    // make many passes or many partials. An unreported path is held only to the shapes
    // --allow-unreported runs by default: NVIDIA's unreported work_group_reduce_min returns 0
    // in work-groups of one or two work-items.
    const std::pair<Factor, std::size_t> shapes[] = {
        {Factor::device, 0}, {Factor::textbook, 0}, {Factor::device, 1}, {Factor::textbook, 2}};
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            for (const auto& [factor, work_group_size] : shapes) {
                auto recipe = combination.recipe;
                if ((work_group_size != 0 && !reports_support(target.report, recipe.path)) ||
                    (factor == Factor::textbook && recipe.finish == Finish::last_group))
                    continue;
                recipe.factor = factor;
                recipe.work_group_size = work_group_size;
                const auto reducer = make_reducer(target, recipe);
                REQUIRE(reducer);
                CHECK(reducer->finish() == recipe.finish);
                const auto lengths = telling_lengths(*reducer);
                const auto longest = *std::max_element(lengths.begin(), lengths.end());
                const auto values = random_values(longest, 2026);
                const auto input = upload(target.queue, values);
                for (const auto length : lengths) {
                    INFO(name_of(factor) << " factor, work-group size "
                                         << reducer->work_group_size() << ", length " << length);
                    CHECK(reducer->reduce(input, length).value ==
                          host_reduce(recipe.op, values.data(), length));
                }
                INFO("the input buffer was written");
                CHECK(read_back(target.queue, input, values.size()) == values);
            }
        }
}

TEST_CASE("every device wraps the sum around and finds the extremes", "[device]") {
    const std::uint64_t length = 1000003;
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const std::vector<cl_int> maxima(length, INT_MAX);
            const auto all_max = upload(target.queue, maxima);
            if (reducer->op() == Op::sum) {
                CHECK(reducer->reduce(all_max, length).value ==
                      host_reduce(Op::sum, maxima.data(), length));
                // An odd count of INT_MIN sums to INT_MIN.
                const std::vector<cl_int> minima(length, INT_MIN);
                CHECK(reducer->reduce(upload(target.queue, minima), length).value == INT_MIN);
            } else {
                CHECK(reducer->reduce(all_max, length).value == INT_MAX); // also min's identity
                std::vector<cl_int> minimum_last(length, INT_MAX);
                minimum_last.back() = INT_MIN;
                const auto last = upload(target.queue, minimum_last);
                CHECK(reducer->reduce(last, length).value == INT_MIN);
                CHECK(reducer->reduce(last, length - 1).value == INT_MAX);
            }
        }
}

TEST_CASE("back-to-back runs all validate, so the arrival count is rearmed each time", "[device]") {
    // Lengths whose launches differ in work-groups, so a count left over from one run would
    // make a later, smaller launch finish early or never.
    const std::uint64_t lengths[] = {1001, 100003, 7, 65537, 2, 1000003};
    for (const auto& combination : combinations())
        DYNAMIC_SECTION(combination.name()) {
            const auto& target = *combination.target;
            const auto reducer = make_reducer(target, combination.recipe);
            REQUIRE(reducer);
            const auto values = random_values(1000003, 99);
            const auto input = upload(target.queue, values);
            int mismatches = 0;
            for (int run = 0; run < 300; ++run) {
                const auto length = lengths[run % std::size(lengths)];
                if (reducer->reduce(input, length).value !=
                    host_reduce(reducer->op(), values.data(), length))
                    ++mismatches;
            }
            CHECK(mismatches == 0);
        }
}

TEST_CASE("a reduction refuses an input buffer shorter than the length", "[device]") {
    for (auto& target : devices_under_test()) {
        const auto reducer = make_reducer(target, {});
        REQUIRE(reducer);
        const auto input = upload(target.queue, std::vector<cl_int>(100, 1));
        CHECK(reducer->reduce(input, 100).value == 100);
        CHECK_THROWS_AS(reducer->reduce(input, 101), std::invalid_argument);
    }
}

TEST_CASE("NVIDIA's compiled kernel shows the fences that allow the last-group finish",
          "[device]") {
    for (auto& target : devices_under_test()) {
        if (target.report.platform_name.find("NVIDIA") == std::string::npos)
            continue;
        INFO("device '" << target.report.name << "'");
        const auto reducer = make_reducer(target, {Op::sum, Path::tree, Factor::device, {}});
        REQUIRE(reducer);
        CHECK(reducer->finish() == Finish::last_group);
    }
}
