#pragma once
// Failing together: every stage of clreduce-mpi that may fail on some ranks ends in an
// exchange of exit codes, so that no rank waits in a collective that a failed rank never
// joins, and every rank exits with the same code.

#include <functional>
#include <mpi.h>

namespace clreduce::mpi {

/// What every rank throws once the ranks agreed that some stage failed.
struct AgreedFailure {
    int code; // the exit code: the highest any rank had
};

class Agreement {
public:
    explicit Agreement(MPI_Comm comm);

    /// Runs `body` on this rank, then agrees with every rank of the communicator (a
    /// collective: every rank must call it, in the same order). When some rank failed, the
    /// lowest rank with the highest exit code prints its one line, "clreduce-mpi: error: rank
    /// R: ...", and every rank throws AgreedFailure with that code.
    void stage(const std::function<void()>& body) const;

private:
    MPI_Comm comm_;
    int rank_ = 0;
};

} // namespace clreduce::mpi
