#include "device_targets.hpp"

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "detail/source.hpp"
#include "tool/devices.hpp"
#include "tool/failure.hpp"

#include <cstdlib>

using namespace clreduce;

namespace {

std::vector<Path> unreported_paths_requested() {
    const char* names = std::getenv("CLREDUCE_TEST_UNREPORTED");
    std::vector<Path> paths;
    if (names == nullptr)
        return paths;
    const std::string list = names;
    for (const Path path : {Path::work_group, Path::sub_group})
        if (list.find(name_of(path)) != std::string::npos)
            paths.push_back(path);
    return paths;
}

std::vector<DeviceUnderTest> find_devices() {
    std::vector<DeviceUnderTest> found;
    std::vector<cl::Platform> platforms;
    try {
        platforms = all_platforms();
    } catch (const Failure&) {
    }
    for (const auto& platform : platforms)
        for (const auto& device : devices_of(platform, CL_DEVICE_TYPE_ALL)) {
            DeviceUnderTest target{DeviceQueue(device), query_report(device), {}};
            for (const Path path : {Path::work_group, Path::sub_group, Path::tree})
                if (reports_support(target.report, path))
                    target.paths.push_back(path);
            for (const Path path : unreported_paths_requested())
                if (!reports_support(target.report, path))
                    target.paths.push_back(path);
            found.push_back(std::move(target));
        }
    return found;
}

} // namespace

std::vector<DeviceUnderTest>& devices_under_test() {
    static std::vector<DeviceUnderTest> devices = find_devices();
    if (devices.empty()) {
        if (std::getenv("CLREDUCE_REQUIRE_DEVICE") != nullptr)
            FAIL("no OpenCL device found, and CLREDUCE_REQUIRE_DEVICE is set");
        WARN("SKIPPED: no OpenCL device found; device tests ran on nothing");
    }
    return devices;
}

const std::string& reduce_kernel_text() {
    static const std::string text(embedded_kernel_source());
    return text;
}

std::unique_ptr<Reducer> make_reducer(const DeviceUnderTest& target, const Recipe& recipe) {
    try {
        return std::make_unique<Reducer>(target.queue.context, target.queue.device, recipe,
                                         reduce_kernel_text());
    } catch (const Error& failure) {
        if (!recipe.path || reports_support(target.report, *recipe.path))
            throw;
        WARN("SKIPPED: unreported " << name_of(*recipe.path) << " path does not build on '"
                                    << target.report.name << "': " << failure.what());
        return nullptr;
    }
}

std::string Combination::name() const {
    return "device '" + target->report.name + "' (" + target->report.platform_name + "), " +
           name_of(*recipe.path) + " path, " + name_of(recipe.type) + " " + name_of(recipe.op) +
           ", finish " + name_of(*recipe.finish);
}

namespace {

/// Every device x path x finish x type x op that `wanted(type, op)` takes.
template <typename Wanted>
std::vector<Combination> find_combinations(Wanted wanted) {
    std::vector<Combination> found;
    for (const auto& target : devices_under_test())
        for (const Path path : target.paths) {
            // Building with auto settles whether the device runs the last-group finish.
            Recipe probe_recipe;
            probe_recipe.path = path;
            probe_recipe.finish = std::nullopt;
            const auto probe = make_reducer(target, probe_recipe);
            if (!probe)
                continue;
            std::vector<Finish> finishes{Finish::passes};
            if (probe->finish() == Finish::last_group)
                finishes.push_back(Finish::last_group);
            for (const auto& type : all_types()) {
                if (!missing_type_support(target.report, type.type).empty())
                    continue;
                for (const auto& op : all_ops()) {
                    const auto accumulator = accumulator_for(type.type, op.op);
                    if (!wanted(type.type, op.op) ||
                        !missing_type_support(target.report, accumulator).empty() ||
                        (path != Path::tree && !has_builtin(op.op, accumulator)))
                        continue;
                    for (const Finish finish : finishes)
                        found.push_back(
                            {&target, {type.type, op.op, {}, {}, path, Factor::device, finish}});
                }
            }
        }
    return found;
}

} // namespace

const std::vector<Combination>& combinations() {
    static const auto all = find_combinations([](DataType type, Op op) {
        return accumulates(type) && (op == Op::sum || op == Op::min || op == Op::max);
    });
    return all;
}

const std::vector<Combination>& wide_loads() {
    static const auto all = find_combinations([](DataType type, Op op) {
        const bool sums = op == Op::sum && (type == DataType::int8 || type == DataType::uint8 ||
                                            type == DataType::int16 || type == DataType::float16 ||
                                            type == DataType::bfloat16);
        return sums || (op == Op::min && (type == DataType::int8 || type == DataType::int16)) ||
               (op == Op::max && type == DataType::uint8) ||
               (op == Op::prod && type == DataType::int8);
    });
    return all;
}

const std::vector<Combination>& combinations_and_wide_loads() {
    static const auto all = [] {
        auto both = combinations();
        both.insert(both.end(), wide_loads().begin(), wide_loads().end());
        return both;
    }();
    return all;
}

const std::vector<Combination>& every_op_and_type() {
    static const auto all = find_combinations([](DataType, Op op) { return op != Op::custom; });
    return all;
}

void write_value(const DeviceQueue& queue, const cl::Buffer& buffer, std::uint64_t index,
                 const Scalar& value) {
    std::visit(
        [&](auto x) {
            queue.queue.enqueueWriteBuffer(buffer, CL_TRUE, index * sizeof x, sizeof x, &x);
        },
        value);
}

HostValues read_back(const DeviceQueue& queue, const cl::Buffer& buffer, DataType type,
                     std::size_t length) {
    return visit_type(type, [&](auto zero) -> HostValues {
        std::vector<decltype(zero)> values(length);
        queue.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, length * sizeof zero, values.data());
        return values;
    });
}

std::vector<Scalar> read_results(const DeviceQueue& queue, const cl::Buffer& buffer, DataType type,
                                 std::size_t length) {
    return visit_accumulator(type, [&](auto zero) {
        std::vector<decltype(zero)> values(length);
        queue.queue.enqueueReadBuffer(buffer, CL_TRUE, 0, length * sizeof zero, values.data());
        return std::vector<Scalar>(values.begin(), values.end());
    });
}

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

} // namespace

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
