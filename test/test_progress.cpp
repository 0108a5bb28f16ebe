#include "catch_compat.hpp"
#include "tool/progress.hpp"

#include <sstream>
#include <thread>

using namespace clreduce;
using namespace std::chrono_literals;

TEST_CASE("a step that outlasts the delay says what it does and how long it took", "[progress]") {
    std::ostringstream out;
    {
        const Progress note("generating 2^30 values", out, true, 10ms);
        std::this_thread::sleep_for(200ms);
    }
    CHECK_THAT(out.str(), Catch::StartsWith("clreduce: generating 2^30 values ...\n"
                                            "clreduce: generating 2^30 values: done in ") &&
                              Catch::EndsWith(" s\n"));
}

TEST_CASE("a short step, or one off a terminal, prints nothing", "[progress]") {
    std::ostringstream out;
    { const Progress quick("uploading", out, true, 10s); }
    {
        const Progress off_terminal("uploading", out, false, 0ms);
        std::this_thread::sleep_for(20ms);
    }
    CHECK(out.str().empty());
}
