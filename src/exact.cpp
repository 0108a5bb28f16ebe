// The host's side of exact sums: the accumulator where rows meet and the one rounding
// happens, and the host reference, which sums by Shewchuk's expansions instead.

#include "clreduce/exact.hpp"

#include "clreduce/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <thread>
#include <type_traits>

namespace clreduce {
namespace {

constexpr int digit_bits = 32;
constexpr cl_long digit_mask = 0xffffffff;
constexpr int headroom_bits = 64; // for 2^64 values of the largest magnitude

/// The bits of the type: its precision and the exponent just past its largest value.
struct Format {
    int precision;
    int max_exponent;
};

Format format_of(DataType type) {
    if (type == DataType::float32)
        return {std::numeric_limits<float>::digits, std::numeric_limits<float>::max_exponent};
    return {std::numeric_limits<double>::digits, std::numeric_limits<double>::max_exponent};
}

/// The type an exact sum of `type` values is rounded to, and whose accumulator it takes:
/// float for float16 and bfloat16, every value of which is exactly a float.
DataType result_type(DataType type) {
    if (!exact_sums(type))
        throw Error(Errc::invalid_argument,
                    "exact sums are of float, double, float16 or bfloat16 values, not " +
                        name_of(type));
    return info(type).accumulator;
}

/// A value of the host type T as a double, exactly.
double widened(double value) {
    return value;
}
double widened(Half value) {
    return to_float(value);
}
double widened(BFloat16 value) {
    return to_float(value);
}
template <typename T>
constexpr bool exactly_summed = std::is_same_v<T, cl_float> || std::is_same_v<T, cl_double> ||
                                std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// An unsigned integer as 32-bit digits, least significant first.
class Magnitude {
public:
    explicit Magnitude(std::vector<std::uint32_t> digits)
        : digits_(std::move(digits)) {}
    /// The position of the highest bit set; -1 for zero.
    int highest_bit() const {
        for (auto digit = digits_.size(); digit-- > 0;)
            if (digits_[digit] != 0)
                return static_cast<int>(digit) * digit_bits + 31 - __builtin_clz(digits_[digit]);
        return -1;
    }
    bool bit(int position) const {
        return (digits_[position / digit_bits] >> (position % digit_bits)) & 1;
    }
    /// Bits [from, from + count), count at most 64, as an integer.
    std::uint64_t bits(int from, int count) const {
        std::uint64_t value = 0;
        for (int i = count; i-- > 0;)
            value = value << 1 | (bit(from + i) ? 1 : 0);
        return value;
    }
    /// Whether any bit below `position` is set.
    bool any_below(int position) const {
        for (int digit = 0; digit < position / digit_bits; ++digit)
            if (digits_[digit] != 0)
                return true;
        const auto below = (std::uint32_t{1} << (position % digit_bits)) - 1;
        return position % digit_bits != 0 && (digits_[position / digit_bits] & below) != 0;
    }

private:
    std::vector<std::uint32_t> digits_;
};

/// Adds x, finite and a multiple of the accumulator's unit, to the expansion `partials`
/// (nonoverlapping, increasing magnitudes): Shewchuk's grow-expansion with Fast2Sum, as
/// Python's math.fsum. An addend whose sum would overflow goes to `overflow` instead.
void grow(std::vector<double>& partials, double x, ExactAccumulator& overflow) {
    std::size_t kept = 0;
    for (double y : partials) {
        if (std::fabs(x) < std::fabs(y))
            std::swap(x, y);
        const double high = x + y;
        if (!std::isfinite(high)) {
            overflow.add(y);
            continue;
        }
        const double low = y - (high - x);
        if (low != 0)
            partials[kept++] = low;
        x = high;
    }
    partials.resize(kept);
    partials.push_back(x);
}

/// The exact sum of `count` values of T from `data`, as an accumulator.
template <typename T>
ExactAccumulator expansion_sum(DataType type, const T* data, std::uint64_t count) {
    ExactAccumulator sum(type);
    std::vector<double> partials;
    for (std::uint64_t i = 0; i < count; ++i) {
        const double x = widened(data[i]);
        if (std::isfinite(x))
            grow(partials, x, sum);
        else
            sum.add(x);
    }
    for (const double partial : partials)
        sum.add(partial);
    return sum;
}

} // namespace

bool exact_sums(DataType type) {
    return type == DataType::float32 || type == DataType::float64 || type == DataType::float16 ||
           type == DataType::bfloat16;
}

ExactAccumulator::ExactAccumulator(DataType type)
    : type_(result_type(type)) {
    row_.assign(row_width(type_), 0);
}

std::size_t ExactAccumulator::limbs(DataType type) {
    type = result_type(type);
    const int bits = format_of(type).max_exponent - lowest_bit(type) + headroom_bits;
    return static_cast<std::size_t>(bits / digit_bits + 2); // + 2: a spill's three digits
}

int ExactAccumulator::lowest_bit(DataType type) {
    type = result_type(type);
    const auto format = format_of(type);
    return (type == DataType::float32 ? std::numeric_limits<float>::min_exponent
                                      : std::numeric_limits<double>::min_exponent) -
           format.precision;
}

void ExactAccumulator::add(double value) {
    const auto limb_count = limbs(type_);
    if (std::isnan(value)) {
        ++row_[limb_count];
        return;
    }
    if (std::isinf(value)) {
        ++row_[limb_count + (value > 0 ? 1 : 2)];
        return;
    }
    // value = mantissa * 2^exponent, with a mantissa of at most 53 bits.
    int exponent = 0;
    const double fraction = std::frexp(std::fabs(value), &exponent);
    auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
    int position = exponent - 53 - lowest_bit(type_);
    if (position < 0) { // the mantissa's bits below the unit are zero
        mantissa >>= -position;
        position = 0;
    }
    const cl_long sign = value < 0 ? -1 : 1;
    const auto shifted = static_cast<unsigned __int128>(mantissa) << (position % digit_bits);
    for (int digit = 0; digit < 3; ++digit)
        row_[position / digit_bits + digit] +=
            sign * static_cast<cl_long>((shifted >> (digit * digit_bits)) & digit_mask);
    normalise();
}

void ExactAccumulator::add_row(const cl_long* row) {
    for (std::size_t entry = 0; entry < row_.size(); ++entry)
        row_[entry] += row[entry];
    normalise();
}

void ExactAccumulator::normalise() {
    const auto limb_count = limbs(type_);
    cl_long carry = 0;
    for (std::size_t limb = 0; limb + 1 < limb_count; ++limb) {
        const cl_long sum = row_[limb] + carry;
        row_[limb] = sum & digit_mask;
        carry = sum >> digit_bits; // arithmetic: a negative sum borrows
    }
    row_[limb_count - 1] += carry;
}

Scalar ExactAccumulator::rounded() const {
    const auto limb_count = limbs(type_);
    const auto nans = row_[limb_count];
    const auto positive_infinities = row_[limb_count + 1];
    const auto negative_infinities = row_[limb_count + 2];
    double value = 0;
    if (nans > 0 || (positive_infinities > 0 && negative_infinities > 0)) {
        value = std::numeric_limits<double>::quiet_NaN();
    } else if (positive_infinities > 0 || negative_infinities > 0) {
        value = positive_infinities > 0 ? HUGE_VAL : -HUGE_VAL;
    } else {
        // The integer in two's complement, the top limb's 64 bits as two digits, then its
        // magnitude.
        std::vector<std::uint32_t> digits;
        for (std::size_t limb = 0; limb + 1 < limb_count; ++limb)
            digits.push_back(static_cast<std::uint32_t>(row_[limb]));
        const auto top = static_cast<std::uint64_t>(row_[limb_count - 1]);
        digits.push_back(static_cast<std::uint32_t>(top));
        digits.push_back(static_cast<std::uint32_t>(top >> digit_bits));
        const bool negative = row_[limb_count - 1] < 0;
        if (negative) {
            std::uint64_t carry = 1;
            for (auto& digit : digits) {
                const std::uint64_t sum = std::uint64_t{~digit} + carry;
                digit = static_cast<std::uint32_t>(sum);
                carry = sum >> digit_bits;
            }
        }
        const Magnitude magnitude(std::move(digits));
        const int precision = format_of(type_).precision;
        const int highest = magnitude.highest_bit();
        // The type's significand: all the bits where they fit, else the top `precision`
        // rounded to nearest, a tie to even.
        int shift = std::max(0, highest - (precision - 1));
        auto significand = magnitude.bits(shift, std::min(highest + 1, precision));
        if (shift > 0 && magnitude.bit(shift - 1) &&
            (magnitude.any_below(shift - 1) || (significand & 1) != 0))
            ++significand; // 2^precision at most, which ldexp still takes exactly
        // Exact in double; past the type's largest value, +-infinity (for float32, the
        // conversion below rounds it there).
        value = std::ldexp(static_cast<double>(significand), lowest_bit(type_) + shift);
        if (negative)
            value = -value;
    }
    if (type_ == DataType::float32) // past FLT_MAX it is 2^128 or more: rounds to infinity
        return std::fabs(value) > std::numeric_limits<float>::max()
                   ? std::copysign(std::numeric_limits<float>::infinity(),
                                   static_cast<float>(std::signbit(value) ? -1 : 1))
                   : static_cast<cl_float>(value);
    return static_cast<cl_double>(value);
}

bool same_bits(const Scalar& a, const Scalar& b) {
    return std::visit(
        [&](auto x) {
            const auto y = std::get<decltype(x)>(b);
            if (std::isnan(static_cast<double>(x)))
                return std::isnan(static_cast<double>(y));
            return std::memcmp(&x, &y, sizeof x) == 0;
        },
        a);
}

Scalar exact_host_sum(const ValuesView& values) {
    return exact_host_sum(values.type, {values});
}

Scalar exact_host_sum(DataType type, const std::vector<ValuesView>& spans) {
    result_type(type); // refuses another type
    const std::uint64_t threads = std::max(1u, std::thread::hardware_concurrency());
    // A thread costs more than the sum of fewer values; a short span (one of an axis's many
    // results) is summed on the calling thread.
    constexpr std::uint64_t smallest_chunk = std::uint64_t{1} << 16;
    std::vector<std::future<ExactAccumulator>> parts;
    for (const auto& span : spans) {
        const auto per_chunk = std::max(smallest_chunk, (span.length + threads - 1) / threads);
        const auto policy = span.length > per_chunk ? std::launch::async : std::launch::deferred;
        for (std::uint64_t first = 0; first < span.length; first += per_chunk)
            parts.push_back(std::async(policy, [=] {
                const auto part = span.part(first, std::min(per_chunk, span.length - first));
                return visit_type(type, [&](auto value) {
                    using T = decltype(value);
                    if constexpr (exactly_summed<T>)
                        return expansion_sum(type, static_cast<const T*>(part.data), part.length);
                    else
                        return ExactAccumulator(type); // refused above
                });
            }));
    }
    ExactAccumulator sum(type);
    for (auto& part : parts)
        sum.add(part.get());
    return sum.rounded();
}

} // namespace clreduce
