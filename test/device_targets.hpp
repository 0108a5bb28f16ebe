#pragma once
// The devices the device tests run on: every device of every platform, with every path it
// reports, plus the unreported paths named in CLREDUCE_TEST_UNREPORTED (comma-separated:
// work-group, sub-group) for proving a path on a device that runs it without saying so.

#include "clreduce/capabilities.hpp"
#include "clreduce/reducer.hpp"

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

/// reduce.cl from the source tree.
const std::string& reduce_kernel_text();

/// A reducer for the device, or none (with a WARN) when an unreported path does not build.
std::unique_ptr<clreduce::Reducer> make_reducer(const DeviceUnderTest& target, clreduce::Op op,
                                                clreduce::Path path,
                                                clreduce::Factor factor = clreduce::Factor::device,
                                                std::size_t work_group_size = 0);

/// "device 'X' (platform), path, op" for INFO lines.
std::string describe(const DeviceUnderTest& target, clreduce::Path path, clreduce::Op op);
