#pragma once
// What each rank did, gathered on rank 0, the check of the combined result against the ranks'
// combined host references, and the report rank 0 prints.

#include "clreduce/types.hpp"
#include "detail/measure.hpp"
#include "tool/options.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <mpi.h>
#include <optional>
#include <string>
#include <vector>

namespace clreduce::mpi {

/// One rank's line of the report: plain bytes, so that MPI_Gather moves it as it is.
struct RankRow {
    char host[64] = {};   // MPI_Get_processor_name, cut short
    char device[96] = {}; // the device's name, cut short
    std::uint64_t platform_index = 0;
    std::uint64_t device_index = 0;
    std::uint64_t first = 0;
    std::uint64_t length = 0;
    double span_us_median = 0;
    unsigned char result[8] = {}; // the slice's first counted result, of the run's type
    unsigned char reference[8] = {};
    // argmin and argmax: the indices of both in the whole input (else 0).
    std::int64_t result_index = 0;
    std::int64_t reference_index = 0;
    int check = 0; // Check
    double tolerance = 0;
    int valid = 1;
    char setup[96] = {}; // SliceReducer::setup(), for -v
};

/// Copies `text` into `field`, cut short to fit with its terminating zero.
template <std::size_t size>
void set_text(char (&field)[size], const std::string& text) {
    text.copy(field, size - 1);
}

/// Copies the bytes of `value` into `field`.
void set_value(unsigned char (&field)[8], const Scalar& value);

/// Every rank's row, on rank 0 (a collective); empty elsewhere.
std::vector<RankRow> gather_rows(const RankRow& mine, MPI_Comm comm);

/// The combined result against the ranks' host references combined on the host with the
/// same op (no data gathered): exactly where every rank's check was exact and the combination
/// cannot round (integers, min, max, clreduce's random sums); for other floating-point sums
/// within the ranks' bounds plus the combination's own rounding; unchecked where any rank's
/// was. With `whole_reference` (a user's op, which no host combines), against that instead.
struct CombinedCheck {
    Scalar reference;
    std::optional<std::int64_t> reference_index; // argmin and argmax
    Check check = Check::exact;
    double tolerance = 0;
    bool valid = true;
    std::vector<int> wrong_ranks; // ranks whose slice missed its own host reference
    std::string reference_name = "the ranks' combined host references"; // for the report
};
CombinedCheck check_combined(DataType type, Op op, Origin origin, const std::vector<RankRow>& rows,
                             const Reduction& result,
                             const std::optional<Scalar>& whole_reference = std::nullopt);

/// The figures rank 0 prints beside the rows.
struct Timing {
    Statistic combine_us; // MPI_Reduce of the ranks' results, all ranks ready
    Statistic whole_us;   // from a barrier to the combined result on rank 0
    bool repeated = false;
};

void print_text(std::ostream& out, const Options& options, const std::vector<RankRow>& rows,
                const std::string& combine, const Timing& timing, const Reduction& result,
                const CombinedCheck& check);
void print_json(std::ostream& out, const Options& options, const std::vector<RankRow>& rows,
                const std::string& combine, const Timing& timing, const Reduction& result,
                const CombinedCheck& check);

} // namespace clreduce::mpi
