#pragma once
// Where this process is among the ranks of a communicator: the opening of every collective
// stage of clreduce-mpi.

#include <mpi.h>

namespace clreduce::mpi {

struct Place {
    int rank = 0;  // this process's, in the communicator
    int ranks = 1; // how many the communicator has
};

inline Place place_in(MPI_Comm comm) {
    Place place;
    MPI_Comm_rank(comm, &place.rank);
    MPI_Comm_size(comm, &place.ranks);
    return place;
}

} // namespace clreduce::mpi
