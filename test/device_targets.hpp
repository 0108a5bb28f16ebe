#pragma once
// The devices the device tests run on: every device of every platform, with every path it
// reports, plus the unreported paths named in CLREDUCE_TEST_UNREPORTED (comma-separated:
// work-group, sub-group) for proving a path on a device that runs it without saying so.
// Each test runs every combination of device, path, type, op and finish as a section of its
// own.

#include "clreduce/reducer.hpp"
#include "detail/capabilities.hpp"

#include <memory>
#include <string>
#include <vector>

struct DeviceUnderTest {
    clreduce::DeviceQueue queue;
    clreduce::DeviceReport report;
    std::vector<clreduce::Path> paths;
};

/// Every device found. With none, WARNs, or FAILs when CLREDUCE_REQUIRE_DEVICE is set (CI).
std::vector<DeviceUnderTest>& devices_under_test();

/// One way to reduce on one device: a path it builds, a type it holds, an op, and a finish
/// it runs.
struct Combination {
    const DeviceUnderTest* target;
    clreduce::Recipe recipe;
    /// "device 'X' (platform), path, type op, finish": the section's name.
    std::string name() const;
};

/// Every device x path x type x op x finish for the six types that are their own
/// accumulator and sum, min and max (the engine's structure, tested in depth): the types the
/// device holds, the last-group finish where the device allows it.
const std::vector<Combination>& combinations();

/// The same for the sums of one type per load the kernel makes of 8 or 16 values (int8,
/// int16, float16 and bfloat16), whose heads, vectors and tails split the input otherwise.
const std::vector<Combination>& wide_load_sums();
/// combinations(), then wide_load_sums().
const std::vector<Combination>& combinations_and_wide_loads();

/// The same for every op and every type, on the paths with a built-in for the op (the tree
/// for the others): the ops and types as data, tested in breadth.
const std::vector<Combination>& every_op_and_type();

/// reduce.cl from the source tree.
const std::string& reduce_kernel_text();

/// A reducer for the device, or none (with a WARN) when an unreported path does not build.
std::unique_ptr<clreduce::Reducer> make_reducer(const DeviceUnderTest& target,
                                                const clreduce::Recipe& recipe);

/// Writes `value` (of the buffer's type) at `index`.
void write_value(const clreduce::DeviceQueue& queue, const cl::Buffer& buffer, std::uint64_t index,
                 const clreduce::Scalar& value);

/// Reads the whole buffer back as `length` values of `type`.
clreduce::HostValues read_back(const clreduce::DeviceQueue& queue, const cl::Buffer& buffer,
                               clreduce::DataType type, std::size_t length);

/// The lengths that break reductions: tiny ones, one work-group's worth and its
/// neighbours, primes above it, a last pass of two values, and a long odd one.
std::vector<std::uint64_t> telling_lengths(const clreduce::Reducer& reducer);

/// Reads the whole buffer back as `length` results of the accumulator type `type`.
std::vector<clreduce::Scalar> read_results(const clreduce::DeviceQueue& queue,
                                           const cl::Buffer& buffer, clreduce::DataType type,
                                           std::size_t length);
