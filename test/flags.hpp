#pragma once
// Build options without the value type's flags, which every build begins with; the tests
// of the other decisions read better without them.

#include "catch_compat.hpp"

#include <string>

inline std::string beyond_type(const std::string& options) {
    const std::string int32 = "-D REDUCE_INPUT=int -D REDUCE_VALUE=int -D REDUCE_VALUE4=int4 "
                              "-D REDUCE_VALUEN=int4 -D REDUCE_VALUES_PER_LOAD=4 "
                              "-D REDUCE_ACCUM=int -D REDUCE_ACCUM4=int4";
    REQUIRE(options.rfind(int32, 0) == 0);
    return options.size() == int32.size() ? "" : options.substr(int32.size() + 1);
}
