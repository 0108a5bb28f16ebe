#include "fingerprint.hpp"

#include "clreduce/kinds.hpp"

#include <numeric>
#include <sstream>

namespace clreduce::mpi {
namespace {

/// The lines joined by '\n' (no line holds one), and back.
std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines)
        text += line + '\n';
    return text;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

/// "--name a<separator>b", or "no --name" for no values.
template <typename T>
std::string listed(const std::string& name, const std::vector<T>& values, char separator) {
    if (values.empty())
        return "no " + name;
    std::string text = name + " ";
    for (std::size_t i = 0; i < values.size(); ++i)
        text += (i == 0 ? "" : std::string(1, separator)) + std::to_string(values[i]);
    return text;
}

} // namespace

std::vector<std::string> fingerprint(const Options& options, std::uint64_t file_bytes,
                                     std::uint64_t file_values) {
    const auto input = options.input ? "--input of " + std::to_string(file_bytes) + " bytes (" +
                                           std::to_string(file_values) + " " +
                                           name_of(options.type) + " values)"
                                     : std::string("no --input");
    return {input,
            "--data-type " + name_of(options.type),
            "--op " + name_of(options.op),
            "--length " + std::to_string(options.length),
            listed("--shape", options.shape, 'x'),
            listed("--axis", options.axes, ','),
            "--seed " + std::to_string(options.seed),
            "--strategy " + (options.path ? name_of(*options.path) : "auto"),
            "--factor " + name_of(options.factor),
            "--finish " + (options.finish ? name_of(*options.finish) : "auto"),
            "--work-group-size " + (options.work_group_size
                                        ? std::to_string(options.work_group_size)
                                        : std::string("(the device's)")),
            "--iterations " + std::to_string(options.iterations),
            options.cold ? "--cold" : "no --cold"};
}

std::optional<std::string> disagreement(const std::vector<std::vector<std::string>>& fingerprints) {
    const auto& first = fingerprints.front();
    for (std::size_t rank = 1; rank < fingerprints.size(); ++rank) {
        const auto& other = fingerprints[rank];
        if (other == first)
            continue;
        std::size_t line = 0;
        while (line < first.size() && line < other.size() && first[line] == other[line])
            ++line;
        const auto said = [](const std::vector<std::string>& lines, std::size_t at) {
            return at < lines.size() ? lines[at] : std::string("nothing more");
        };
        return "rank 0 has " + said(first, line) + ", rank " + std::to_string(rank) + " has " +
               said(other, line);
    }
    return std::nullopt;
}

std::vector<std::vector<std::string>> gather_fingerprints(const std::vector<std::string>& mine,
                                                          MPI_Comm comm) {
    int ranks = 0;
    MPI_Comm_size(comm, &ranks);
    const auto text = joined(mine);
    const int size = static_cast<int>(text.size());
    std::vector<int> sizes(static_cast<std::size_t>(ranks));
    MPI_Allgather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm);
    std::vector<int> offsets(sizes.size(), 0);
    std::partial_sum(sizes.begin(), sizes.end() - 1, offsets.begin() + 1);
    std::string all(static_cast<std::size_t>(offsets.back() + sizes.back()), '\0');
    MPI_Allgatherv(text.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                   comm);
    std::vector<std::vector<std::string>> fingerprints;
    for (std::size_t rank = 0; rank < sizes.size(); ++rank)
        fingerprints.push_back(split_lines(all.substr(offsets[rank], sizes[rank])));
    return fingerprints;
}

} // namespace clreduce::mpi
