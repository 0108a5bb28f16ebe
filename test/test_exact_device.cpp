// ExactSum as another OpenCL program calls it: ranges of the caller's buffer at any offset,
// and an input in pieces, each giving the bits of the host's exact sum; the rows of a split
// input adding up to the whole's; many runs summed at once (the segmented kernel), and its
// mutants caught; the kernel as GPUs read it, run on the device at hand. The CLI test
// check_exact.py covers the adversarial inputs.

#include "catch_compat.hpp"
#include "clreduce/errors.hpp"
#include "clreduce/exact.hpp"
#include "detail/capabilities.hpp"
#include "detail/source.hpp"
#include "device_targets.hpp"

#include <limits>
#include <random>
#include <type_traits>

using namespace clreduce;

namespace {

/// exact_sum.cl as GPUs read it (strided across the launch, float values in chains), made by
/// test/CMakeLists.txt, so that a CPU runs that path too.
std::string strided_kernel() {
    return read_kernel_file("exact_sum.cl", {CLREDUCE_TEST_KERNEL_VARIANTS_DIR "/exact-strided"});
}

/// Whether the device has what exact_sum.cl needs.
bool exact_sum_runs(const DeviceUnderTest& target) {
    return missing_type_support(target.report, DataType::float64).empty() &&
           missing_type_support(target.report, DataType::int64).empty() &&
           target.report.has_extension("cl_khr_int64_base_atomics");
}

/// `value` rounded to the host type T.
template <typename T>
T held_as(double value) {
    if constexpr (std::is_same_v<T, Half>)
        return to_half(static_cast<float>(value));
    else if constexpr (std::is_same_v<T, BFloat16>)
        return to_bfloat16(static_cast<float>(value));
    else
        return static_cast<T>(value);
}

/// Values with cancellation at every magnitude from 2^-`scale` to 2^`scale`: random
/// mantissas and exponents, each value followed by its negation a third of the time.
template <typename T>
std::vector<T> cancelling_values(std::size_t count, int scale) {
    std::mt19937_64 random(22);
    std::uniform_int_distribution<int> exponent(-scale, scale);
    std::uniform_real_distribution<double> mantissa(-1, 1);
    std::vector<T> values;
    while (values.size() < count) {
        const double value = std::ldexp(mantissa(random), exponent(random));
        values.push_back(held_as<T>(value));
        if (random() % 3 == 0 && values.size() < count)
            values.push_back(held_as<T>(-value));
    }
    return values;
}

/// `scale` 60 for float and double; 16 for float16, whose largest value is 65504 and whose
/// subnormals are below 2^-14.
template <typename T>
void check_exact_sums(const DeviceUnderTest& target, DataType type, int scale = 60) {
    const auto& queue = target.queue.queue;
    const auto values = cancelling_values<T>(300007, scale);
    const HostValues held = values;
    const ValuesView view(held);
    const auto buffer = upload(target.queue, held);
    // The device's own launch (on a CPU, a work-item a work-group), and a GPU's, whose
    // work-items fold their expansions.
    for (const std::size_t work_group_size : {0, 256}) {
        ExactSum sized(target.queue.context, target.queue.device, type, work_group_size);
        for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                 {0, 1}, {1, 2}, {3, 255}, {5, 257}, {0, 300007}, {7, 300000}}) {
            INFO(name_of(type) << " values " << first << " to " << first + count
                               << ", work-group size " << work_group_size);
            CHECK(same_bits(sized.reduce(queue, buffer, first, count),
                            exact_host_sum(view.part(first, count))));
        }
    }
    ExactSum exact_sum(target.queue.context, target.queue.device, type);
    // Three pieces of one buffer, and the rows of two halves, give the whole's bits.
    const auto whole = exact_sum.accumulate(queue, {{buffer, 300007, 0}});
    const auto pieces = exact_sum.accumulate(
        queue, {{buffer, 1000, 0}, {buffer, 200000, 1000}, {buffer, 99007, 201000}});
    CHECK(pieces.row() == whole.row());
    auto halves = exact_sum.accumulate(queue, {{buffer, 150000, 0}});
    halves.add(exact_sum.accumulate(queue, {{buffer, 150007, 150000}}));
    CHECK(halves.row() == whole.row());
}

/// Inputs whose sums meet each case of the rounding: ties to even both ways, a zero, a
/// subnormal, overflow and the special values.
template <typename T>
std::vector<std::vector<T>> rounding_cases() {
    using limits = std::numeric_limits<T>;
    const T half_ulp = limits::epsilon() / 2;
    const T largest = limits::max();
    return {{1, half_ulp},
            {1 + limits::epsilon(), half_ulp},
            {-1, -half_ulp, -half_ulp / 2},
            {1, -1},
            {-0.0},
            {limits::denorm_min(), limits::denorm_min(), limits::denorm_min()},
            {largest, largest},
            {-largest, -largest, largest},
            {limits::quiet_NaN(), 1},
            {limits::infinity(), -limits::infinity()},
            {-limits::infinity(), largest}};
}

/// Each input's exact sum enqueued into one buffer of results, after the last one's event,
/// then compared with the host's exact sum.
template <typename T>
void check_enqueued_sums(const DeviceUnderTest& target, DataType type,
                         std::vector<std::vector<T>> inputs) {
    using Result = std::conditional_t<std::is_same_v<T, cl_double>, cl_double, cl_float>;
    ExactSum exact_sum(target.queue.context, target.queue.device, type);
    const cl::Buffer results(target.queue.context, CL_MEM_READ_WRITE,
                             sizeof(Result) * (inputs.size() + 1));
    std::vector<cl::Buffer> buffers;
    std::vector<cl::Event> last;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        buffers.push_back(upload(target.queue, HostValues(inputs[i])));
        last = {exact_sum.enqueue(target.queue.queue, {{buffers.back(), inputs[i].size(), 0}},
                                  results, i + 1, &last)};
    }
    std::vector<Result> written(inputs.size() + 1);
    target.queue.queue.enqueueReadBuffer(results, CL_TRUE, 0, sizeof(Result) * written.size(),
                                         written.data(), &last);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        INFO(name_of(type) << " input " << i << " of " << inputs[i].size() << " values");
        CHECK(same_bits(written[i + 1], exact_host_sum(ValuesView(HostValues(inputs[i])))));
    }
}

/// Runs of the three launches (ExactSum::RunsPlan) on a device of up to 16 compute units: many
/// short runs (a work-item each), runs a work-group each, few long ones (cut in chunks and
/// rounded by a second launch); then runs of one value and of none. From odd first values on.
struct RunsCase {
    std::uint64_t first, run_length, count;
};
const RunsCase runs_cases[] = {{5, 37, 8000}, {3, 2001, 140}, {1, 100003, 2}, {0, 1, 3}, {2, 0, 3}};
constexpr std::size_t cases_of_each_launch = 3;

/// Which launch the plan is: 0 a work-item a run, 1 a work-group, 2 chunks.
int launch_of(const ExactSum::RunsPlan& plan) {
    return plan.work_item_each ? 0 : plan.chunks > 1 ? 2 : 1;
}

/// Each case's runs of `values` summed by `exact_sum` in one call: the rounded sums, read back.
std::vector<Scalar> sums_of_runs(const DeviceUnderTest& target, ExactSum& exact_sum,
                                 const cl::Buffer& values, const RunsCase& runs) {
    const auto type = ExactAccumulator(exact_sum.type()).type();
    // NaNs (all bits set) where no sum is written, so that none passes unwritten.
    std::vector<unsigned char> unwritten(info(type).size * (runs.count + 1), 0xff);
    const cl::Buffer sums(target.queue.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                          unwritten.size(), unwritten.data());
    const std::vector<cl::Event> done = {exact_sum.enqueue_runs(
        target.queue.queue, values, runs.first, runs.run_length, runs.count, sums, 1)};
    auto read = read_results(target.queue, sums, type, runs.count + 1);
    read.erase(read.begin()); // the value before the offset, not written
    return read;
}

/// The host's exact sum of each run.
std::vector<Scalar> host_sums_of_runs(const ValuesView& view, const RunsCase& runs) {
    std::vector<Scalar> sums;
    for (std::uint64_t k = 0; k < runs.count; ++k)
        sums.push_back(
            exact_host_sum(view.part(runs.first + k * runs.run_length, runs.run_length)));
    return sums;
}

/// How many of `got` differ from `expected` in any bit.
std::size_t wrong_sums(const std::vector<Scalar>& got, const std::vector<Scalar>& expected) {
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < got.size(); ++k)
        wrong += same_bits(got[k], expected[k]) ? 0 : 1;
    return wrong;
}

template <typename T>
void check_runs(const DeviceUnderTest& target, DataType type, int scale = 60,
                std::string_view kernel = embedded_exact_kernel_source()) {
    const HostValues held = cancelling_values<T>(300007, scale);
    const auto buffer = upload(target.queue, held);
    ExactSum exact_sum(target.queue.context, target.queue.device, type, 0, kernel);
    for (const auto& runs : runs_cases) {
        INFO(name_of(type) << ": " << runs.count << " runs of " << runs.run_length << " values");
        CHECK(wrong_sums(sums_of_runs(target, exact_sum, buffer, runs),
                         host_sums_of_runs(ValuesView(held), runs)) == 0);
    }
}

} // namespace

TEST_CASE("many runs summed at once each give the host's exact bits, a work-item, a work-group "
          "or chunks a run",
          "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        const ExactSum exact_sum(target.queue.context, target.queue.device, DataType::float32);
        if (target.report.compute_units <= 16) // the cases' counts fill no larger device
            for (std::size_t k = 0; k < cases_of_each_launch; ++k)
                REQUIRE(launch_of(exact_sum.plan_runs(runs_cases[k].run_length,
                                                      runs_cases[k].count)) == static_cast<int>(k));
        check_runs<cl_float>(target, DataType::float32);
        check_runs<cl_double>(target, DataType::float64);
        check_runs<Half>(target, DataType::float16, 16);
        check_runs<BFloat16>(target, DataType::bfloat16);
        // As GPUs read them: values close in magnitude, which chains take, and far apart.
        check_runs<cl_float>(target, DataType::float32, 4, strided_kernel());
        check_runs<cl_float>(target, DataType::float32, 60, strided_kernel());
        check_runs<Half>(target, DataType::float16, 4, strided_kernel());
    }
}

TEST_CASE("the rows of two parts of each run add up to the host's exact sum of the whole run",
          "[api][exact]") {
    const HostValues held = cancelling_values<cl_double>(300007, 60);
    const ValuesView view(held);
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        const auto buffer = upload(target.queue, held);
        ExactSum exact_sum(target.queue.context, target.queue.device, DataType::float64);
        const auto width = ExactAccumulator::row_width(DataType::float64);
        // Part one of run k is the k-th run from `first` on, part two the k-th after them: a
        // work-group a run (also where enqueue_runs() takes a work-item), chunks, no values.
        for (const auto& runs : {RunsCase{5, 37, 4000}, RunsCase{3, 2001, 70},
                                 RunsCase{1, 100003, 1}, runs_cases[4]}) {
            INFO(runs.count << " runs of " << runs.run_length << " values, in two parts");
            const auto second = runs.first + runs.count * runs.run_length;
            std::vector<cl_long> parts[2];
            for (int part = 0; part < 2; ++part) {
                const auto rows = exact_sum.enqueue_run_rows(target.queue.queue, buffer,
                                                             part == 0 ? runs.first : second,
                                                             runs.run_length, runs.count);
                parts[part].resize(std::max<std::uint64_t>(1, runs.count) * width);
                target.queue.queue.enqueueReadBuffer(
                    rows, CL_TRUE, 0, parts[part].size() * sizeof(cl_long), parts[part].data());
            }
            std::size_t wrong = 0;
            for (std::uint64_t k = 0; k < runs.count; ++k) {
                ExactAccumulator sum(DataType::float64);
                sum.add_row(&parts[0][k * width]);
                sum.add_row(&parts[1][k * width]);
                const auto expected =
                    exact_host_sum(DataType::float64,
                                   {view.part(runs.first + k * runs.run_length, runs.run_length),
                                    view.part(second + k * runs.run_length, runs.run_length)});
                wrong += same_bits(sum.rounded(), expected) ? 0 : 1;
            }
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("each exact_sum.cl mutant gives a wrong sum of runs in each of the three launches",
          "[api][exact][mutants]") {
    const HostValues held = cancelling_values<cl_float>(300007, 60);
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        const auto buffer = upload(target.queue, held);
        for (const char* mutant : {"drop-last-value", "drop-row", "drop-carry"}) {
            ExactSum broken(target.queue.context, target.queue.device, DataType::float32, 0,
                            read_kernel_file("exact_sum.cl", {CLREDUCE_TEST_EXACT_MUTANT_DIR "/" +
                                                              std::string(mutant)}));
            for (std::size_t k = 0; k < cases_of_each_launch; ++k) {
                const auto& runs = runs_cases[k];
                INFO("mutant " << mutant << ": " << runs.count << " runs of " << runs.run_length);
                CHECK(wrong_sums(sums_of_runs(target, broken, buffer, runs),
                                 host_sums_of_runs(ValuesView(held), runs)) > 0);
            }
        }
    }
}

TEST_CASE("an enqueued exact sum writes the host's exact bits into the caller's buffer",
          "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        auto floats = rounding_cases<cl_float>();
        floats.push_back(cancelling_values<cl_float>(300007, 60));
        check_enqueued_sums(target, DataType::float32, floats);
        auto doubles = rounding_cases<cl_double>();
        doubles.push_back(cancelling_values<cl_double>(300007, 60));
        check_enqueued_sums(target, DataType::float64, doubles);
        check_enqueued_sums<Half>(
            target, DataType::float16,
            {cancelling_values<Half>(300007, 16), {to_half(65504), to_half(65504)}});
    }
}

TEST_CASE("the exact sum of any range or pieces has the host's exact bits", "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target)) {
            CHECK_THROWS_AS(ExactSum(target.queue.context, target.queue.device, DataType::float32),
                            Error);
            continue;
        }
        check_exact_sums<cl_float>(target, DataType::float32);
        check_exact_sums<cl_double>(target, DataType::float64);
        check_exact_sums<Half>(target, DataType::float16, 16);
        check_exact_sums<BFloat16>(target, DataType::bfloat16);
    }
}

/// One work-item a work-group, so that each reads a long run: on a CPU, blocks (exact_sum.cl's
/// add_blocks()); with the kernel as GPUs read it, long chains (add_vectors()). Exponents
/// within 4 binades of 1 and mantissas in (-1, 1) leave most float blocks narrow, summed with
/// plain double additions, and some wider, which go value by value; doubles' blocks are summed
/// against splitters.
template <typename T>
void check_blocks(const DeviceUnderTest& target, DataType type,
                  std::string_view kernel = embedded_exact_kernel_source()) {
    const HostValues held = cancelling_values<T>(300007, 4);
    const auto buffer = upload(target.queue, held);
    ExactSum exact_sum(target.queue.context, target.queue.device, type, 1, kernel);
    CHECK(same_bits(exact_sum.reduce(target.queue.queue, buffer, 0, 300007),
                    exact_host_sum(ValuesView(held).part(0, 300007))));
}

TEST_CASE("values close in magnitude, in long runs a work-item, sum to the host's exact bits",
          "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        check_blocks<cl_float>(target, DataType::float32);
        check_blocks<cl_double>(target, DataType::float64);
        check_blocks<Half>(target, DataType::float16);
        check_blocks<BFloat16>(target, DataType::bfloat16);
        check_blocks<cl_float>(target, DataType::float32, strided_kernel());
        check_blocks<BFloat16>(target, DataType::bfloat16, strided_kernel());
    }
}

TEST_CASE("the exact kernel prefetches a CPU's blocks where the device is PoCL's", "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        const ExactSum exact_sum(target.queue.context, target.queue.device, DataType::float64);
        const bool prefetches =
            exact_sum.build_options().find("-D PREFETCH_BYTES=4096") != std::string::npos;
        CHECK(prefetches == prefetches_runs(target.report));
    }
}

TEST_CASE("an exact sum of integers is refused", "[api][exact]") {
    for (auto& target : devices_under_test()) {
        try {
            ExactSum(target.queue.context, target.queue.device, DataType::int32);
            FAIL("an ExactSum of int32 was built");
        } catch (const Error& error) {
            CHECK(error.cause() == Errc::unsupported);
        }
    }
}

TEST_CASE("a long piece takes 4 work-groups a compute unit, but a GPU's doubles 2",
          "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        const bool cpu = reads_contiguous_runs(target.report);
        const std::uint64_t long_piece = std::uint64_t{1} << 40;
        for (const auto type : {DataType::float32, DataType::float64}) {
            INFO("type " << name_of(type));
            const ExactSum exact_sum(target.queue.context, target.queue.device, type);
            const bool doubles_on_gpu = type == DataType::float64 && !cpu;
            CHECK(exact_sum.work_groups_for(long_piece) ==
                  target.report.compute_units * (doubles_on_gpu ? 2 : 4));
        }
    }
}

TEST_CASE("a CPU's piece takes a work-group a compute unit until each gets 256 KiB of values "
          "as added",
          "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target) || !reads_contiguous_runs(target.report))
            continue;
        const std::uint64_t units = target.report.compute_units;
        for (const auto type : {DataType::float32, DataType::float64, DataType::float16}) {
            INFO("type " << name_of(type));
            const ExactSum exact_sum(target.queue.context, target.queue.device, type);
            // float16 values are added as floats.
            const std::uint64_t group_values = 256 * 1024 / (type == DataType::float64 ? 8 : 4);
            CHECK(exact_sum.work_groups_for(4) == 1);
            CHECK(exact_sum.work_groups_for(4 * units) == units);
            CHECK(exact_sum.work_groups_for(units * group_values) == units);
            CHECK(exact_sum.work_groups_for(units * group_values + 1) == units + 1);
            CHECK(exact_sum.work_groups_for(3 * units * group_values) == 3 * units);
        }
    }
}

TEST_CASE("a short piece takes a smaller work-group, and a CPU one work-item, unless a size was "
          "asked for",
          "[api][exact]") {
    for (auto& target : devices_under_test()) {
        INFO("device " << target.report.name);
        if (!exact_sum_runs(target))
            continue;
        const ExactSum chosen(target.queue.context, target.queue.device, DataType::float32);
        const auto largest = chosen.work_group_size();
        const bool cpu = reads_contiguous_runs(target.report);
        CHECK(chosen.work_group_size_for(1) == (cpu ? 1 : std::min<std::size_t>(64, largest)));
        CHECK(chosen.work_group_size_for(std::uint64_t{1} << 40) == (cpu ? 1 : largest));
        const ExactSum asked(target.queue.context, target.queue.device, DataType::float32, 32);
        CHECK(asked.work_group_size_for(1) == 32);
        CHECK(asked.work_group_size_for(std::uint64_t{1} << 40) == 32);
    }
}
