#pragma once
// The devices the device tests run on: every device of every platform, with every path it
// reports, plus the unreported paths named in CLREDUCE_TEST_UNREPORTED (comma-separated:
// work-group, sub-group) for proving a path on a device that runs it without saying so.
// Each test runs every combination of device, path, op and finish as a section of its own.

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

/// One way to reduce on one device: a path it builds, an op, and a finish it runs.
struct Combination {
    const DeviceUnderTest* target;
    clreduce::Recipe recipe;
    /// "device 'X' (platform), path, op, finish": the section's name.
    std::string name() const;
};

/// Every device x path x op x finish, the last-group finish where the device allows it.
const std::vector<Combination>& combinations();

/// reduce.cl from the source tree.
const std::string& reduce_kernel_text();

/// A reducer for the device, or none (with a WARN) when an unreported path does not build.
std::unique_ptr<clreduce::Reducer> make_reducer(const DeviceUnderTest& target,
                                                const clreduce::Recipe& recipe);
