#pragma once
// Saying what a long step is doing, so that a run of minutes does not look hung.

#include <chrono>
#include <condition_variable>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace clreduce {

/// A note for one step, from construction to destruction: when the step is still running
/// after `delay`, "clreduce: <what> ..." goes to `out`, and when it ends, how long it took.
/// Short steps print nothing. Disabled, it prints nothing and starts no thread.
class Progress {
public:
    /// On stderr, after 2 s, when stderr is a terminal (tests and pipes see nothing).
    explicit Progress(std::string what);
    Progress(std::string what, std::ostream& out, bool enabled, std::chrono::milliseconds delay);
    ~Progress() { end(); }
    /// Ends the step before the note goes out of scope; later calls do nothing.
    void end();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

private:
    std::string what_;
    std::ostream& out_;
    std::chrono::steady_clock::time_point started_;
    std::mutex mutex_;
    std::condition_variable ended_;
    bool done_ = false;
    bool printed_ = false;
    std::thread waiter_;
};

} // namespace clreduce
