#pragma once
// Catch2 v2 (Debian bookworm) or v3 (Ubuntu 24.04), behind v2's names. CMake says which one
// it found: a machine may hold the other's headers too.

#if CLREDUCE_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>
#include <string>

namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& text) {
    return Matchers::ContainsSubstring(text);
}
} // namespace Catch
#else
#include <catch2/catch.hpp>
#endif
