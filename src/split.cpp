#include "clreduce/split.hpp"

#include "detail/capabilities.hpp"
#include "detail/reference.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <numeric>
#include <thread>

namespace clreduce {

Reduction DeviceShare::reduce() {
    if (stream)
        return stream->reduce(length).reduction;
    return reducer->reduce_timed(queue->queue, input->prefix(length));
}

std::vector<ValuesView> DeviceShare::host_values(const std::optional<ValuesView>& values) const {
    if (stream)
        return stream->spans(length);
    return {values->part(first, length)};
}

namespace {

/// argmin's or argmax's pairs of the shares, combined.
Reduction combined_pairs(Op op, const std::vector<Reduction>& reductions) {
    return std::visit(
        [&](auto zero) {
            using A = decltype(zero);
            auto pair = indexed_identity<A>(op);
            for (const auto& reduction : reductions)
                pair =
                    combine_indexed<A>(op, pair, {std::get<A>(reduction.value), *reduction.index});
            Reduction whole;
            whole.value = pair.value;
            whole.index = pair.index;
            return whole;
        },
        reductions.front().value);
}

} // namespace

SplitRun reduce_together(std::vector<DeviceShare>& shares) {
    SplitRun run;
    run.reductions.resize(shares.size());
    std::vector<std::exception_ptr> failures(shares.size());
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < shares.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                run.reductions[i] = shares[i].reduce();
            } catch (...) {
                failures[i] = std::current_exception();
            }
        });
    for (auto& thread : threads)
        thread.join();
    run.host_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started)
            .count();
    for (const auto& failure : failures)
        if (failure)
            std::rethrow_exception(failure);
    return run;
}

std::vector<double> speeds_of(const std::vector<DeviceShare>& shares, const SplitRun& run) {
    std::vector<double> measured;
    for (std::size_t i = 0; i < shares.size(); ++i)
        measured.push_back(static_cast<double>(shares[i].length) /
                           std::max(run.reductions[i].span_us, 1e-3));
    std::vector<double> speeds;
    for (const auto& share : shares) {
        double sum = 0;
        int same = 0;
        for (std::size_t j = 0; j < shares.size(); ++j)
            if (shares[j].reducer->report().name == share.reducer->report().name) {
                sum += measured[j];
                ++same;
            }
        speeds.push_back(sum / same);
    }
    return speeds;
}

Reduction combined(Op op, const std::vector<DeviceShare>& shares,
                   const std::vector<Reduction>& reductions) {
    if (op == Op::custom) // no host twin: the first device combines them, as partials
        return shares.front().reducer->reduce_results(shares.front().queue->queue, reductions);
    Reduction whole;
    whole.value = reductions.front().value;
    if (info(op).indexed)
        return combined_pairs(op, reductions);
    for (std::size_t i = 1; i < reductions.size(); ++i)
        whole.value = std::visit(
            [&](auto a) -> Scalar {
                return combine(op, a, std::get<decltype(a)>(reductions[i].value));
            },
            whole.value);
    return whole;
}

std::vector<std::uint64_t> split_shares(std::uint64_t length, const std::vector<double>& speeds) {
    const double total = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    const bool one_each = length >= speeds.size();
    std::vector<std::uint64_t> shares;
    std::vector<double> fractions; // what rounding down left of each exact share
    for (const auto speed : speeds) {
        const double exact = static_cast<double>(length) * speed / total;
        const auto share = std::min(static_cast<std::uint64_t>(exact), length);
        shares.push_back(one_each ? std::max<std::uint64_t>(share, 1) : share);
        fractions.push_back(exact - static_cast<double>(share));
    }
    // Largest fractions first; ties to the later device, so that two equal devices sharing an
    // odd length give the extra value to the second.
    std::vector<std::size_t> order(speeds.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return fractions[a] > fractions[b] || (fractions[a] == fractions[b] && a > b);
    });
    std::uint64_t given = std::accumulate(shares.begin(), shares.end(), std::uint64_t{0});
    for (std::size_t i = 0; given < length; i = (i + 1) % order.size(), ++given)
        ++shares[order[i]];
    // Raising a share to one value may have given too many: take them from the largest.
    while (given > length) {
        --*std::max_element(shares.begin(), shares.end());
        --given;
    }
    return shares;
}

} // namespace clreduce
