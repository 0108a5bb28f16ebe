#include "tool/progress.hpp"

#include <cstdio>
#include <iostream>
#include <unistd.h>
#include <utility>

namespace clreduce {

Progress::Progress(std::string what)
    : Progress(std::move(what), std::cerr, isatty(STDERR_FILENO) == 1, std::chrono::seconds(2)) {}

Progress::Progress(std::string what, std::ostream& out, bool enabled,
                   std::chrono::milliseconds delay)
    : what_(std::move(what))
    , out_(out)
    , started_(std::chrono::steady_clock::now()) {
    if (!enabled)
        return;
    waiter_ = std::thread([this, delay] {
        std::unique_lock<std::mutex> lock(mutex_);
        if (ended_.wait_for(lock, delay, [this] { return done_; }))
            return;
        out_ << "clreduce: " << what_ << " ..." << std::endl;
        printed_ = true;
    });
}

void Progress::end() {
    if (!waiter_.joinable())
        return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
    }
    ended_.notify_one();
    waiter_.join();
    if (printed_) {
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started_;
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f", took.count());
        out_ << "clreduce: " << what_ << ": done in " << seconds << " s" << std::endl;
    }
}

} // namespace clreduce
