#pragma once
// The kernel's source: found on disk, then completed with the op the user chose.

#include "clreduce/kinds.hpp"
#include "clreduce/types.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace clreduce {

/// Where kernel files are looked for, in order: `override_dir` alone when it is given, else
/// the folder `kernels` beside the executable (the build tree), then the install prefix's
/// share/clreduce/kernels relative to the executable.
std::vector<std::filesystem::path> kernel_folders(const std::string& override_dir);

/// The text of the first `file_name` found in `folders`. Throws Failure(ExitCode::kernel_source)
/// naming every path tried when none is there, or the one that cannot be read.
std::string read_kernel_file(const std::string& file_name,
                             const std::vector<std::filesystem::path>& folders);

/// OpenCL C definitions of identity(), op(), op4() and, for a collective path, the relay that
/// reduce.cl declares (work_group_reduce_op or sub_group_reduce_op), for `type`. Integer
/// sums work on the unsigned twin so that they wrap around without signed overflow, exactly
/// like the host reference; floating-point min and max are fmin and fmax.
std::string op_definitions(Op op, Path path, DataType type);

/// reduce.cl's text with op_definitions() appended.
std::string complete_kernel_source(const std::string& kernel_text, Op op, Path path, DataType type);

} // namespace clreduce
