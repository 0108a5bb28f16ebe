// Device tests of NaN, infinities and signed zeros: every path and finish gives what IEEE
// arithmetic and fmin/fmax give (docs/validation.md, "Floating point").

#include "catch_compat.hpp"
#include "detail/plan.hpp"
#include "detail/reference.hpp"
#include "device_targets.hpp"

#include <cmath>
#include <functional>
#include <limits>

using namespace clreduce;

namespace {

/// Writes special values into small integers: at the first value, the first vector's last
/// lane, the middle, the end, or everywhere.
template <typename T>
struct SpecialCase {
    const char* name;
    std::function<void(std::vector<T>&)> place;
};

template <typename T>
std::vector<SpecialCase<T>> special_cases() {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const T inf = std::numeric_limits<T>::infinity();
    const auto fill = [](T value) {
        return [value](std::vector<T>& v) { std::fill(v.begin(), v.end(), value); };
    };
    return {
        {"a NaN in the middle", [=](std::vector<T>& v) { v[v.size() / 2] = nan; }},
        {"a NaN in every lane of the first vector",
         [=](std::vector<T>& v) {
             std::fill(v.begin(), v.begin() + std::min<std::size_t>(4, v.size()), nan);
         }},
        {"+inf at the end", [=](std::vector<T>& v) { v.back() = inf; }},
        {"-inf first and at the end", [=](std::vector<T>& v) { v.front() = v.back() = -inf; }},
        {"-inf in the first vector's last lane, +inf at the end",
         [=](std::vector<T>& v) {
             v[std::min<std::size_t>(3, v.size() - 1)] = -inf;
             v.back() = inf;
         }},
        {"NaN everywhere", fill(nan)},
        {"NaN everywhere but the end",
         [=](std::vector<T>& v) { std::fill(v.begin(), v.end() - 1, nan); }},
        {"-0 everywhere", fill(T{-0.0})},
        {"-0 and +0 in turn",
         [](std::vector<T>& v) {
             for (std::size_t i = 0; i < v.size(); ++i)
                 v[i] = i % 2 == 0 ? T{-0.0} : T{0};
         }},
        {"-0 among the values", [](std::vector<T>& v) { v.front() = v[v.size() / 2] = T{-0.0}; }},
    };
}

/// op over `values` one at a time from the identity, in T: what IEEE arithmetic and fmin/fmax
/// give in the order of the input.
template <typename T>
T folded_in_order(Op op, const std::vector<T>& values) {
    T result = identity_of<T>(op);
    for (const T value : values)
        result = combine(op, result, value);
    return result;
}

/// Reduces each special case of `length` values on the device: it must give what the host
/// reference gives, and what folding the values in order gives.
template <typename T>
void check_special_cases(Reducer& reducer, const DeviceQueue& queue, std::uint64_t length) {
    for (const auto& special : special_cases<T>()) {
        auto values =
            std::get<std::vector<T>>(random_values(reducer.type(), Op::sum, length, length));
        special.place(values);
        const auto device = reducer.reduce(queue.queue, upload(queue, values), 0, length);
        const auto host = host_reduce(reducer.op(), values, length).value;
        const auto in_order = folded_in_order(reducer.op(), values);
        INFO("length " << length << ", " << special.name << ": device " << to_string(device)
                       << ", host " << to_string(host) << ", in order " << to_string(in_order));
        CHECK(same_value(device, host));
        CHECK(same_value(device, in_order));
    }
}

} // namespace

TEST_CASE("NaN, infinities and signed zeros reduce alike on every path and finish",
          "[device][special]") {
    const std::pair<Factor, std::size_t> shapes[] = {{Factor::device, 0}, {Factor::textbook, 0}};
    for (const auto& combination : combinations()) {
        if (!info(combination.recipe.type).floating())
            continue;
        DYNAMIC_SECTION(combination.name()) {
            for (const auto& [factor, work_group_size] : shapes) {
                auto recipe = combination.recipe;
                if (factor == Factor::textbook && recipe.finish == Finish::last_group)
                    continue;
                recipe.factor = factor;
                recipe.work_group_size = work_group_size;
                const auto reducer = make_reducer(*combination.target, recipe);
                REQUIRE(reducer);
                INFO(name_of(factor) << " factor");
                const auto per_work_group = reducer->shape().values_per_work_group();
                for (const std::uint64_t length : {std::uint64_t{1}, std::uint64_t{3},
                                                   per_work_group + 1, std::uint64_t{100003}})
                    visit_type(recipe.type, [&](auto zero) {
                        if constexpr (std::is_floating_point_v<decltype(zero)>)
                            check_special_cases<decltype(zero)>(*reducer, combination.target->queue,
                                                                length);
                    });
            }
        }
    }
}
