// Reductions along an axis timed against the streaming read, for choosing the plan's tunables
// (docs/axes.md): an R x C row-major matrix of R x C = 2^log2 values, C = 2^1 ... 2^(log2 - 1),
// reduced along each axis, int32 and float sums, on the first device of the type.
//
//   axis_benchmark [gpu|cpu] [log2 values] [runs]
//                  [sweep|quick|narrow|vectors|vectors-looping|strips|csr|csr-sweep|ceiling]
//                  (default: gpu 28 10)
//
// With `sweep`, every tuning (SegmentTuning) is timed where it changes the plan, with `quick`,
// `narrow`, `vectors` (narrow rows read as vectors or in teams) or `strips` (columns of few
// rows: a column or a strip of columns a work-item) a few, else the defaults only;
// `vectors-looping` times instead of the defaults rows read as vectors by work-groups that
// loop over tiles (a check of their local memory's turns under Oclgrind). CSV on stdout:
// type,axis,columns,team,chunk,units,column,launched,batched,strip,contiguous,run,plan,min_us,
// median_us,gbps,stream_us,percent (0 for a tunable: its default). Every int32 result is checked
// (the matrix holds ones: a row sums to C, a column to R); a wrong one exits 1. Speed is judged on
// the GPU machine, never in tests.
//
// With `csr` (`csr-sweep`: and a few tunings), ragged CSR segments of up to 2^log2 values in all
// instead (reduce_segments): lengths uniform in 0 ... 2000, and a heavy tail, 2^(20 u) for u
// uniform in [0, 1) (1 ... 2^20, as many segments of each octave). CSV:
// type,lengths,segments,values,team,units,plan,min_us,median_us,gbps,stream_us,percent; the time
// (a split's two launches' added) and the stream read are of the values the segments hold. With
// `ceiling`, float rows of 2, 4 and 8 summed by a hand-written kernel of vector loads
// (time_hand_rows) instead.

#include "detail/measure.hpp"
#include "detail/profiling.hpp"
#include "detail/segment_plan.hpp"

#include <CL/opencl.hpp>
#include <algorithm>
#include <clreduce/reducer.hpp>
#include <clreduce/segmented.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <random>
#include <string>
#include <variant>
#include <vector>

using namespace clreduce;

namespace {

cl::Device first_device(cl_device_type type) {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    for (const auto& platform : platforms) {
        std::vector<cl::Device> devices;
        platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
        for (const auto& device : devices)
            if (device.getInfo<CL_DEVICE_TYPE>() & type)
                return device;
    }
    throw std::runtime_error("no such OpenCL device");
}

double median(std::vector<double> times) {
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

/// Whether result k of an int32 sum of ones is length(k).
template <typename Length>
bool ones_summed(const cl::CommandQueue& queue, const cl::Buffer& results, std::uint64_t count,
                 Length length) {
    std::vector<cl_int> values(count);
    queue.enqueueReadBuffer(results, CL_TRUE, 0, count * sizeof(cl_int), values.data());
    for (std::uint64_t k = 0; k < count; ++k)
        if (static_cast<std::uint64_t>(values[k]) != length(k))
            return false;
    return true;
}

struct Bench {
    const cl::Context& context;
    const cl::Device& device;
    const cl::CommandQueue& queue;
    unsigned runs;
};

/// Times one type over every shape and axis, with each tuning of `tunings`.
bool time_type(const Bench& bench, DataType type, unsigned log2,
               const std::vector<SegmentTuning>& tunings) {
    const std::uint64_t values = std::uint64_t{1} << log2;
    Recipe recipe;
    recipe.type = type;
    Reducer whole(bench.context, bench.device, recipe);
    StreamRead stream(whole, bench.queue);
    const cl::Buffer input(bench.context, CL_MEM_READ_ONLY, values * 4);
    if (type == DataType::int32)
        bench.queue.enqueueFillBuffer(input, cl_int{1}, 0, values * 4);
    else
        bench.queue.enqueueFillBuffer(input, cl_float{1}, 0, values * 4);
    const cl::Buffer results(bench.context, CL_MEM_READ_WRITE, values / 2 * 4);
    bool right = true;
    const SegmentedReducer defaults(bench.context, bench.device, recipe);
    for (const auto& tuning : tunings) {
        SegmentedReducer reducer(bench.context, bench.device, recipe, tuning);
        for (unsigned columns_log2 = 1; columns_log2 < log2; ++columns_log2)
            for (const int axis : {1, 0}) {
                const Shape shape{{values >> columns_log2, std::uint64_t{1} << columns_log2}};
                const auto layout = axis_layout(shape, {axis});
                const auto plan = reducer.plan(layout);
                // A sweep times a tuning only where it changes the default plan.
                if (&tuning != &tunings.front() &&
                    describe(plan) == describe(defaults.plan(layout)))
                    continue;
                std::vector<double> span, read;
                for (unsigned run = 0; run <= bench.runs; ++run) {
                    std::vector<cl::Event> events;
                    reducer.enqueue_reduce_axes(bench.queue, input, 0, shape, {axis}, results, 0,
                                                {}, &events);
                    bench.queue.finish();
                    const double stream_us = stream.launch_us({{input, values}});
                    if (run == 0)
                        continue; // warm-up
                    span.push_back(clreduce::span_us(events.front(), events.back()));
                    read.push_back(stream_us);
                }
                if (type == DataType::int32 &&
                    !ones_summed(bench.queue, results, layout.results(),
                                 [&](std::uint64_t) { return layout.length; })) {
                    std::fprintf(stderr, "wrong result: axis %d of %llu columns\n", axis,
                                 static_cast<unsigned long long>(shape.extents[1]));
                    right = false;
                }
                std::string text = describe(plan);
                std::replace(text.begin(), text.end(), '\n', ';');
                std::replace(text.begin(), text.end(), ',', ' ');
                const double best = *std::min_element(span.begin(), span.end());
                std::printf("%s,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,%.1f,%.1f,"
                            "%.0f,%.1f,%.0f\n",
                            name_of(type).c_str(), axis,
                            static_cast<unsigned long long>(shape.extents[1]),
                            static_cast<unsigned long long>(tuning.values_per_team_item),
                            static_cast<unsigned long long>(tuning.values_per_chunk_item),
                            static_cast<unsigned long long>(tuning.work_groups_per_unit),
                            static_cast<unsigned long long>(tuning.values_per_column_item),
                            static_cast<unsigned long long>(tuning.launched_groups_per_unit),
                            static_cast<unsigned long long>(tuning.batched_tiles),
                            static_cast<unsigned long long>(tuning.strip_rows_below),
                            static_cast<unsigned long long>(tuning.contiguous_items),
                            static_cast<unsigned long long>(tuning.column_run), text.c_str(), best,
                            median(span), gigabytes_per_second(values * 4, best), median(read),
                            100 * median(read) / best);
                std::fflush(stdout);
            }
    }
    return right;
}

/// Segment lengths of `kind` ("uniform": 0 ... 2000; "heavy": 2^(20 u), 1 ... 2^20) adding
/// up to at most `values`, always the same.
std::vector<std::uint64_t> ragged_lengths(const std::string& kind, std::uint64_t values) {
    std::mt19937_64 random(21);
    std::uniform_int_distribution<std::uint64_t> uniform(0, 2000);
    std::uniform_real_distribution<double> octaves(0, 20);
    std::vector<std::uint64_t> lengths;
    for (std::uint64_t total = 0;;) {
        const auto length = kind == "uniform"
                                ? uniform(random)
                                : static_cast<std::uint64_t>(std::exp2(octaves(random)));
        if (total + length > values)
            return lengths;
        lengths.push_back(length);
        total += length;
    }
}

/// Times CSR segments of ragged lengths, planned with each of `tunings`, against the stream
/// read of the values they hold; a split's two launches' device times added.
bool time_csr(const Bench& bench, DataType type, unsigned log2,
              const std::vector<SegmentTuning>& tunings) {
    Recipe recipe;
    recipe.type = type;
    Reducer whole(bench.context, bench.device, recipe);
    StreamRead stream(whole, bench.queue);
    const std::uint64_t most = std::uint64_t{1} << log2;
    const cl::Buffer input(bench.context, CL_MEM_READ_ONLY, most * 4);
    if (type == DataType::int32)
        bench.queue.enqueueFillBuffer(input, cl_int{1}, 0, most * 4);
    else
        bench.queue.enqueueFillBuffer(input, cl_float{1}, 0, most * 4);
    bool right = true;
    for (const std::string kind : {"uniform", "heavy"}) {
        const auto lengths = ragged_lengths(kind, most);
        std::vector<cl_ulong> offsets{0};
        for (const auto length : lengths)
            offsets.push_back(offsets.back() + length);
        const std::uint64_t segments = lengths.size(), values = offsets.back();
        const cl::Buffer offsets_buffer(bench.context, CL_MEM_READ_ONLY,
                                        offsets.size() * sizeof(cl_ulong));
        bench.queue.enqueueWriteBuffer(offsets_buffer, CL_TRUE, 0,
                                       offsets.size() * sizeof(cl_ulong), offsets.data());
        for (const auto& tuning : tunings) {
            SegmentedReducer reducer(bench.context, bench.device, recipe, tuning);
            std::vector<double> span, read;
            for (unsigned run = 0; run <= bench.runs; ++run) {
                const auto result = reducer.reduce_segments(bench.queue, input, 0, values,
                                                            offsets_buffer, segments);
                const double stream_us = stream.launch_us({{input, values}});
                if (run == 0)
                    continue; // warm-up
                span.push_back(std::accumulate(result.pass_us.begin(), result.pass_us.end(), 0.0));
                read.push_back(stream_us);
                for (std::uint64_t k = 0; k < segments && type == DataType::int32 && run == 1; ++k)
                    if (std::visit([](auto x) { return static_cast<double>(x); },
                                   result.values[k]) != static_cast<double>(lengths[k])) {
                        std::fprintf(stderr, "wrong result: %s CSR segment %llu\n", kind.c_str(),
                                     static_cast<unsigned long long>(k));
                        right = false;
                        break;
                    }
            }
            const double best = *std::min_element(span.begin(), span.end());
            std::string plan = describe(plan_csr(segments, values, reducer.device_shape()));
            std::replace(plan.begin(), plan.end(), '\n', ';');
            std::replace(plan.begin(), plan.end(), ',', ' ');
            std::printf("%s,%s,%llu,%llu,%llu,%llu,%s,%.1f,%.1f,%.0f,%.1f,%.0f\n",
                        name_of(type).c_str(), kind.c_str(),
                        static_cast<unsigned long long>(segments),
                        static_cast<unsigned long long>(values),
                        static_cast<unsigned long long>(tuning.values_per_team_item),
                        static_cast<unsigned long long>(tuning.work_groups_per_unit), plan.c_str(),
                        best, median(span), gigabytes_per_second(values * 4, best), median(read),
                        100 * median(read) / best);
            std::fflush(stdout);
        }
    }
    return right;
}

/// Float rows of 2, 4 and 8 summed by hand: a work-item per row, the row in one vector load,
/// its sum written. No op, no type, no tiles: what reading the matrix and writing the result
/// can take at best, the ceiling of the narrow rows' percentages (docs/axes.md).
const char* const hand_rows_source = R"(
kernel void rows2(global const float2* in, global float* out) {
    const float2 v = in[get_global_id(0)];
    out[get_global_id(0)] = v.x + v.y;
}
kernel void rows4(global const float4* in, global float* out) {
    const float4 v = in[get_global_id(0)];
    out[get_global_id(0)] = (v.x + v.y) + (v.z + v.w);
}
kernel void rows8(global const float8* in, global float* out) {
    const float4 v = in[get_global_id(0)].lo + in[get_global_id(0)].hi;
    out[get_global_id(0)] = (v.x + v.y) + (v.z + v.w);
}
)";

/// Times the hand-written rows of 2, 4 and 8 floats against the stream read. CSV:
/// columns,min_us,median_us,stream_us,percent.
void time_hand_rows(const Bench& bench, unsigned log2) {
    const std::uint64_t values = std::uint64_t{1} << log2;
    Recipe recipe;
    recipe.type = DataType::float32;
    Reducer whole(bench.context, bench.device, recipe);
    StreamRead stream(whole, bench.queue);
    const cl::Buffer input(bench.context, CL_MEM_READ_ONLY, values * 4);
    bench.queue.enqueueFillBuffer(input, cl_float{1}, 0, values * 4);
    const cl::Buffer results(bench.context, CL_MEM_READ_WRITE, values / 2 * 4);
    cl::Program program(bench.context, hand_rows_source);
    program.build({bench.device});
    for (const std::uint64_t columns : {2, 4, 8}) {
        cl::Kernel kernel(program, ("rows" + std::to_string(columns)).c_str());
        kernel.setArg(0, input);
        kernel.setArg(1, results);
        std::vector<double> span, read;
        for (unsigned run = 0; run <= bench.runs; ++run) {
            cl::Event event;
            bench.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(values / columns),
                                             cl::NDRange(256), nullptr, &event);
            bench.queue.finish();
            const double stream_us = stream.launch_us({{input, values}});
            if (run == 0)
                continue; // warm-up
            span.push_back(clreduce::command_us(event));
            read.push_back(stream_us);
        }
        const double best = *std::min_element(span.begin(), span.end());
        std::printf("%llu,%.1f,%.1f,%.1f,%.0f\n", static_cast<unsigned long long>(columns), best,
                    median(span), median(read), 100 * median(read) / best);
        std::fflush(stdout);
    }
}

/// The tunings of ragged CSR segments: the defaults, and with `sweep` teams and splits.
std::vector<SegmentTuning> csr_tunings(const std::string& mode) {
    std::vector<SegmentTuning> all{{}};
    if (mode == "csr-sweep") {
        for (const std::uint64_t team : {16, 64})
            all.push_back({team, 0, 0, 0, 0});
        for (const std::uint64_t units : {1, 32, 512}) // 1: no split
            all.push_back({0, 0, units, 0, 0});
    }
    return all;
}

/// A GPU's plans, whatever the device (a CPU's contiguous runs off).
SegmentTuning gpu_plan() {
    SegmentTuning tuning;
    tuning.contiguous_items = 1;
    return tuning;
}

/// The defaults, then, for a sweep, each tunable varied alone; `quick` (for slow devices)
/// varies only the work-groups a launch holds and tries one work-item per row.
std::vector<SegmentTuning> tunings(const std::string& mode) {
    constexpr std::uint64_t none = std::uint64_t{1} << 40; // no loop over tiles; rows of one
    if (mode == "vectors-looping") { // for Oclgrind: rows read as vectors, looping over tiles
        auto looping = gpu_plan();
        looping.vector_loads_below = 17;
        looping.team_group_size = 64;
        looping.launched_groups_per_unit = 1;
        return {looping};
    }
    std::vector<SegmentTuning> all{{}};
    if (mode == "quick") {
        for (const std::uint64_t launched : {std::uint64_t{1}, std::uint64_t{16}, none})
            all.push_back({0, 0, 0, 0, launched});
        all.push_back({none, 0, 0, 0, 0});
        all.push_back(gpu_plan()); // a CPU planned as a GPU: no contiguous runs
        for (const std::uint64_t run : {256, 1024, 16384}) {
            SegmentTuning runs;
            runs.column_run = run;
            all.push_back(runs);
        }
        SegmentTuning wider; // contiguous runs in wider work-groups
        wider.contiguous_items = 64;
        all.push_back(wider);
        all.push_back({0, 0, 16, 0, 0}); // more work-groups, shorter runs
    }
    // narrow: the tunings of narrow rows and columns: a tile at a time; the batched kernels; a
    // work-item per row of 16 or 32, batched; GPUs' plans, also on a CPU.
    if (mode == "sweep" || mode == "narrow") {
        for (const std::uint64_t batched : {1, 4}) {
            auto tuning = gpu_plan();
            tuning.batched_tiles = batched;
            all.push_back(tuning);
        }
        for (const std::uint64_t team : {16, 32}) {
            auto tuning = gpu_plan();
            tuning.values_per_team_item = team;
            all.push_back(tuning);
        }
    }
    // vectors: narrow rows in teams, not read as vectors (1), and read so in work-groups of 64,
    // 128 and 256
    if (mode == "sweep" || mode == "vectors") {
        auto teams = gpu_plan();
        teams.vector_loads_below = 1;
        all.push_back(teams);
        for (const std::uint64_t size : {64, 128, 256}) {
            auto tuning = gpu_plan();
            tuning.team_group_size = size;
            tuning.vector_loads_below = 17;
            all.push_back(tuning);
        }
    }
    // strips: a column a work-item (1), and column strips wherever they fit
    if (mode == "sweep" || mode == "narrow" || mode == "strips")
        for (const std::uint64_t strip_rows : {std::uint64_t{1}, none}) {
            auto tuning = gpu_plan();
            tuning.strip_rows_below = strip_rows;
            tuning.fewest_strip_tiles = 1;
            all.push_back(tuning);
        }
    if (mode != "sweep")
        return all;
    for (const std::uint64_t team : {1, 2, 4, 64})
        all.push_back({team, 0, 0, 0, 0});
    for (const std::uint64_t chunk : {16, 32, 256, 1024})
        all.push_back({0, chunk, 0, 0, 0});
    for (const std::uint64_t units : {2, 4, 8, 16, 64, 128})
        all.push_back({0, 0, units, 0, 0});
    for (const std::uint64_t column : {64, 256, 4096})
        all.push_back({0, 0, 0, column, 0});
    for (const std::uint64_t launched :
         {std::uint64_t{4}, std::uint64_t{8}, std::uint64_t{16}, std::uint64_t{32},
          std::uint64_t{128}, std::uint64_t{256}, none})
        all.push_back({0, 0, 0, 0, launched});
    return all;
}

} // namespace

int main(int argc, char* argv[]) try {
    const std::string kind = argc > 1 ? argv[1] : "gpu";
    const unsigned log2 = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 28;
    const unsigned runs = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 10;
    const std::string mode = argc > 4 ? argv[4] : "";
    const bool csr = mode.rfind("csr", 0) == 0;
    const auto device = first_device(kind == "cpu" ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU);
    const cl::Context context(device);
    const cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE);
    const bool ceiling = mode == "ceiling";
    std::printf("# %s\n%s\n", device.getInfo<CL_DEVICE_NAME>().c_str(),
                ceiling ? "columns,min_us,median_us,stream_us,percent"
                : csr   ? "type,lengths,segments,values,team,units,plan,min_us,median_us,gbps,"
                          "stream_us,percent"
                        : "type,axis,columns,team,chunk,units,column,launched,batched,strip,"
                          "contiguous,run,plan,min_us,median_us,gbps,stream_us,percent");
    const Bench bench{context, device, queue, runs};
    if (ceiling) {
        time_hand_rows(bench, log2);
        return 0;
    }
    bool right = true;
    for (const auto type : {DataType::int32, DataType::float32})
        right = (csr ? time_csr(bench, type, log2, csr_tunings(mode))
                     : time_type(bench, type, log2, tunings(mode))) &&
                right;
    return right ? 0 : 1;
} catch (const std::exception& error) {
    std::fprintf(stderr, "axis_benchmark: %s\n", error.what());
    return 1;
}
