#include "agree.hpp"

#include "tool/failure.hpp"

#include <iostream>
#include <sstream>
#include <string>

namespace clreduce::mpi {
namespace {

/// clreduce's error line ("clreduce: error: ...", from exit_code_of, the one place that maps
/// exceptions to exit codes) as this program's, naming the rank.
std::string as_rank_error(const std::string& text, int rank) {
    const std::string tool_prefix = "clreduce: error: ";
    const auto message = text.rfind(tool_prefix, 0) == 0 ? text.substr(tool_prefix.size()) : text;
    return "clreduce-mpi: error: rank " + std::to_string(rank) + ": " + message;
}

} // namespace

Agreement::Agreement(MPI_Comm comm)
    : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
}

void Agreement::stage(const std::function<void()>& body) const {
    std::ostringstream error;
    struct {
        int code;
        int rank;
    } mine{exit_code_of(
               [&] {
                   body();
                   return ExitCode::success;
               },
               error),
           rank_},
        worst{};
    // MPI_MAXLOC: the highest code, and of the ranks that have it the lowest.
    MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm_);
    if (worst.code == 0)
        return;
    if (worst.rank == rank_)
        std::cerr << as_rank_error(error.str(), rank_) << std::flush;
    throw AgreedFailure{worst.code};
}

} // namespace clreduce::mpi
