// Device tests: the reduction on every device found, against the host reference.

#include "catch_compat.hpp"
#include "clreduce/reference.hpp"
#include "device_targets.hpp"

#include <climits>

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
    struct Variant {
        Factor factor;
        std::size_t work_group_size;
    };
    // The tuned shape, the textbook one, and tiny work-groups that make many passes. An
    // unreported path is held only to the shapes --allow-unreported runs by default: NVIDIA's
    // unreported work_group_reduce_min returns 0 in work-groups of one or two work-items.
    const Variant variants[] = {
        {Factor::device, 0}, {Factor::textbook, 0}, {Factor::device, 1}, {Factor::textbook, 2}};
    for (auto& target : devices_under_test())
        for (const Path path : target.paths)
            for (const Op op : {Op::sum, Op::min})
                for (const auto& variant : variants) {
                    if (variant.work_group_size != 0 && !reports_support(target.report, path))
                        continue;
                    const auto reducer =
                        make_reducer(target, op, path, variant.factor, variant.work_group_size);
                    if (!reducer)
                        continue;
                    const auto lengths = telling_lengths(*reducer);
                    const auto longest = *std::max_element(lengths.begin(), lengths.end());
                    const auto values = random_values(longest, 2026);
                    const auto input = upload(target.queue, values);
                    for (const auto length : lengths) {
                        INFO(describe(target, path, op)
                             << ", " << name_of(variant.factor) << " factor, work-group size "
                             << reducer->work_group_size() << ", length " << length);
                        CHECK(reducer->reduce(input, length).value ==
                              host_reduce(op, values.data(), length));
                    }
                    INFO(describe(target, path, op) << ": the input buffer was written");
                    CHECK(read_back(target.queue, input, values.size()) == values);
                }
}

TEST_CASE("every device wraps the sum around and finds the extremes", "[device]") {
    const std::uint64_t length = 1000003;
    for (auto& target : devices_under_test())
        for (const Path path : target.paths) {
            const auto sum = make_reducer(target, Op::sum, path);
            const auto min = make_reducer(target, Op::min, path);
            if (!sum || !min)
                continue;
            INFO(describe(target, path, Op::sum) << " and min");

            const std::vector<cl_int> maxima(length, INT_MAX);
            const auto all_max = upload(target.queue, maxima);
            CHECK(min->reduce(all_max, length).value == INT_MAX); // INT_MAX is also min's identity
            CHECK(sum->reduce(all_max, length).value ==
                  host_reduce(Op::sum, maxima.data(), length));

            std::vector<cl_int> minimum_last(length, INT_MAX);
            minimum_last.back() = INT_MIN;
            const auto last = upload(target.queue, minimum_last);
            CHECK(min->reduce(last, length).value == INT_MIN);
            CHECK(min->reduce(last, length - 1).value == INT_MAX);

            const std::vector<cl_int> minima(length, INT_MIN); // an odd count of INT_MIN sums to it
            CHECK(sum->reduce(upload(target.queue, minima), length).value == INT_MIN);
        }
}
