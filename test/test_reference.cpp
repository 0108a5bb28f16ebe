#include "catch_compat.hpp"
#include "detail/reference.hpp"

#include <climits>
#include <cmath>
#include <set>

using namespace clreduce;

namespace {

template <typename T>
Scalar reduce(Op op, std::vector<T> values) {
    const auto length = values.size();
    return host_reduce(op, HostValues(std::move(values)), length).value;
}

} // namespace

TEST_CASE("integer sums wrap around in the type's width", "[reference]") {
    CHECK(reduce(Op::sum, std::vector<cl_int>{INT_MAX, 1}) == Scalar(cl_int{INT_MIN}));
    CHECK(reduce(Op::sum, std::vector<cl_int>{INT_MIN, INT_MIN, INT_MIN}) ==
          Scalar(cl_int{INT_MIN}));
    CHECK(reduce(Op::sum, std::vector<cl_uint>{UINT_MAX, 2}) == Scalar(cl_uint{1}));
    CHECK(reduce(Op::sum, std::vector<cl_long>{LLONG_MAX, 1}) == Scalar(cl_long{LLONG_MIN}));
    CHECK(reduce(Op::sum, std::vector<cl_ulong>{ULLONG_MAX, ULLONG_MAX}) ==
          Scalar(cl_ulong{ULLONG_MAX - 1}));
    CHECK(combine(Op::sum, cl_int{INT_MIN}, cl_int{-1}) == INT_MAX);
}

TEST_CASE("min and max see the extremes of every type", "[reference]") {
    CHECK(reduce(Op::min, std::vector<cl_int>{5, INT_MAX, INT_MIN, 7}) == Scalar(cl_int{INT_MIN}));
    CHECK(reduce(Op::max, std::vector<cl_int>{5, INT_MIN, 7}) == Scalar(cl_int{7}));
    CHECK(reduce(Op::max, std::vector<cl_uint>{0, UINT_MAX, 3}) == Scalar(cl_uint{UINT_MAX}));
    CHECK(reduce(Op::min, std::vector<cl_ulong>{9, 0, 3}) == Scalar(cl_ulong{0}));
    CHECK(reduce(Op::min, std::vector<cl_long>{LLONG_MAX}) == Scalar(cl_long{LLONG_MAX}));
    CHECK(reduce(Op::max, std::vector<cl_double>{-1.5, -0.25}) == Scalar(cl_double{-0.25}));
    CHECK(reduce(Op::min, std::vector<cl_float>{1.0f, -3.5f, 2.0f}) == Scalar(cl_float{-3.5f}));
}

TEST_CASE("floating-point nanmin and nanmax ignore a NaN, as np.nanmin and OpenCL C's fmin do",
          "[reference]") {
    const auto nan = std::numeric_limits<cl_float>::quiet_NaN();
    CHECK(reduce(Op::nanmin, std::vector<cl_float>{nan, 2.0f, 1.0f}) == Scalar(cl_float{1.0f}));
    CHECK(reduce(Op::nanmax, std::vector<cl_float>{2.0f, nan}) == Scalar(cl_float{2.0f}));
}

TEST_CASE("nanmin and nanmax of NaN alone give NaN, as NumPy's do", "[reference]") {
    CHECK(std::isnan(std::get<cl_float>(reduce(Op::nanmin, std::vector<cl_float>{NAN, NAN}))));
    CHECK(std::isnan(std::get<cl_double>(reduce(Op::nanmax, std::vector<cl_double>{NAN}))));
}

TEST_CASE("floating-point min and max propagate NaN, as np.min and np.max do", "[reference]") {
    const auto nan = std::numeric_limits<cl_double>::quiet_NaN();
    const auto inf = std::numeric_limits<cl_double>::infinity();
    for (const auto op : {Op::min, Op::max}) {
        INFO(name_of(op));
        CHECK(std::isnan(std::get<cl_double>(reduce(op, std::vector<cl_double>{1, nan, 2}))));
        CHECK(std::isnan(std::get<cl_double>(reduce(op, std::vector<cl_double>{nan}))));
        CHECK(std::isnan(std::get<cl_double>(reduce(op, std::vector<cl_double>{inf, nan, -inf}))));
    }
    CHECK(reduce(Op::min, std::vector<cl_double>{inf, -inf}) == Scalar(-inf));
    CHECK(reduce(Op::max, std::vector<cl_double>{inf, -inf}) == Scalar(inf));
}

namespace {

/// argmin's or argmax's index of `values` on the host.
template <typename T>
std::int64_t index_of(Op op, std::vector<T> values) {
    const auto length = values.size();
    return *host_reduce(op, HostValues(std::move(values)), length).index;
}

} // namespace

TEST_CASE("argmin and argmax give np.argmin's and np.argmax's first index", "[reference]") {
    const auto nan = std::numeric_limits<cl_double>::quiet_NaN();
    const auto inf = std::numeric_limits<cl_double>::infinity();
    // Ties: the first index.
    CHECK(index_of(Op::argmax, std::vector<cl_int>{1, 5, 3, 5}) == 1);
    CHECK(index_of(Op::argmin, std::vector<cl_int>{4, 4, 4}) == 0);
    CHECK(index_of(Op::argmin, std::vector<cl_uint>{9, 0, 3, 0}) == 1);
    // The first NaN wins, as in np.argmax([1, nan, 2, nan]) == 1.
    CHECK(index_of(Op::argmax, std::vector<cl_double>{1, nan, inf, nan}) == 1);
    CHECK(index_of(Op::argmin, std::vector<cl_double>{-inf, 2, nan, nan}) == 2);
    CHECK(index_of(Op::argmax, std::vector<cl_float>{-INFINITY, -INFINITY}) == 0);
    // -0 == +0: np.argmax([-0.0, 0.0]) == 0 and np.argmin([0.0, -0.0]) == 0.
    CHECK(index_of(Op::argmax, std::vector<cl_double>{-0.0, 0.0}) == 0);
    CHECK(index_of(Op::argmin, std::vector<cl_double>{0.0, -0.0}) == 0);
    CHECK(index_of(Op::argmax, std::vector<cl_double>{inf, 1, inf}) == 0);
    // Halves compare after widening; bools as NumPy's, every nonzero byte True:
    // np.argmax(np.frombuffer(b"\0\1\2", bool)) == 1.
    CHECK(index_of(Op::argmax, std::vector<Half>{to_half(1), to_half(NAN), to_half(2)}) == 1);
    CHECK(index_of(Op::argmax, std::vector<Boolean>{{0}, {1}, {1}}) == 1);
    CHECK(index_of(Op::argmax, std::vector<Boolean>{{0}, {1}, {2}}) == 1);
    CHECK(index_of(Op::argmin, std::vector<Boolean>{{255}, {1}, {0}}) == 2);
    // The value comes with it, in the accumulator.
    const auto pair = host_reduce(Op::argmin, HostValues(std::vector<cl_char>{3, -7, -7}), 3);
    CHECK(pair.value == Scalar(cl_long{-7}));
    CHECK(pair.index == 1);
    CHECK_FALSE(host_reduce(Op::min, HostValues(std::vector<cl_int>{3}), 1).index);
}

TEST_CASE("argmin and argmax count indices on across spans", "[reference]") {
    const std::vector<cl_int> first{1, 9, 2};
    const std::vector<cl_int> second{9, 0, 9};
    const std::vector<ValuesView> spans{
        ValuesView(DataType::int32, first.data(), 3, Origin::given),
        ValuesView(DataType::int32, second.data(), 3, Origin::given)};
    CHECK(host_reduce(Op::argmax, DataType::int32, spans).index == 1);
    CHECK(host_reduce(Op::argmin, DataType::int32, spans).index == 4);
}

TEST_CASE("argmin's and argmax's pair combines in any order to the first index", "[reference]") {
    using Pair = IndexedValue<cl_float>;
    const std::vector<Pair> pairs{{2, 7}, {NAN, 9}, {2, 3}, {NAN, 5}, {-1, 1}, {2, 0}};
    for (const auto op : {Op::argmin, Op::argmax})
        for (const auto& a : pairs)
            for (const auto& b : pairs) {
                const auto ab = combine_indexed(op, a, b);
                const auto ba = combine_indexed(op, b, a);
                CHECK(ab.index == ba.index); // commutative
                for (const auto& c : pairs)  // associative
                    CHECK(combine_indexed(op, combine_indexed(op, a, b), c).index ==
                          combine_indexed(op, a, combine_indexed(op, b, c)).index);
                CHECK(combine_indexed(op, indexed_identity<cl_float>(op), a).index == a.index);
            }
}

TEST_CASE("small types accumulate as NumPy's sums do", "[reference]") {
    CHECK(reduce(Op::sum, std::vector<cl_char>{127, 127, 127}) == Scalar(cl_long{381}));
    CHECK(reduce(Op::sum, std::vector<cl_char>{-128, -128}) == Scalar(cl_long{-256}));
    CHECK(reduce(Op::sum, std::vector<cl_uchar>{255, 255}) == Scalar(cl_ulong{510}));
    CHECK(reduce(Op::sum, std::vector<cl_short>{-32768, -1}) == Scalar(cl_long{-32769}));
    CHECK(reduce(Op::sum, std::vector<cl_ushort>{65535, 1}) == Scalar(cl_ulong{65536}));
    CHECK(reduce(Op::sum, std::vector<Boolean>{{1}, {0}, {1}}) == Scalar(cl_ulong{2}));
    // NumPy counts every nonzero byte of a bool as one True (a uint8 mask viewed as bool).
    CHECK(reduce(Op::sum, std::vector<Boolean>{{2}, {0}, {255}}) == Scalar(cl_ulong{2}));
    CHECK(reduce(Op::prod, std::vector<Boolean>{{2}, {3}, {128}}) == Scalar(cl_ulong{1}));
    CHECK(reduce(Op::max, std::vector<Boolean>{{0}, {7}}) == Scalar(cl_ulong{1}));
    CHECK(reduce(Op::sum, std::vector<Half>{to_half(0.5f), to_half(1024)}) ==
          Scalar(cl_float{1024.5f}));
    CHECK(reduce(Op::max, std::vector<BFloat16>{to_bfloat16(-3), to_bfloat16(2.5f)}) ==
          Scalar(cl_float{2.5f}));
    CHECK(host_reduce(Op::sum, HostValues(std::vector<cl_int>{INT_MAX, 1}), 2, DataType::int64)
              .value == Scalar(cl_long{2147483648}));
}

TEST_CASE("products wrap like sums; any and all say whether some or every value is nonzero",
          "[reference]") {
    CHECK(reduce(Op::prod, std::vector<cl_int>{65536, 65536, 3}) == Scalar(cl_int{0}));
    CHECK(reduce(Op::prod, std::vector<cl_int>{-3, 5, 7}) == Scalar(cl_int{-105}));
    CHECK(reduce(Op::prod, std::vector<cl_uint>{0x80000001u, 3}) == Scalar(cl_uint{0x80000003u}));
    CHECK(reduce(Op::prod, std::vector<cl_char>{-128, -128, -128}) == Scalar(cl_long{-2097152}));
    CHECK(reduce(Op::prod, std::vector<cl_double>{0.5, -4, 3}) == Scalar(cl_double{-6}));
    CHECK(reduce(Op::any, std::vector<cl_int>{0, 0, 7}) == Scalar(cl_uint{1}));
    CHECK(reduce(Op::any, std::vector<cl_float>{0, -0.0f}) == Scalar(cl_uint{0}));
    CHECK(reduce(Op::any, std::vector<cl_float>{0, NAN}) == Scalar(cl_uint{1}));
    CHECK(reduce(Op::all, std::vector<cl_int>{1, 2, 0}) == Scalar(cl_uint{0}));
    CHECK(reduce(Op::all, std::vector<Boolean>{{1}, {1}}) == Scalar(cl_uint{1}));
    CHECK(reduce(Op::all, std::vector<cl_double>{}) == Scalar(cl_uint{1}));
    CHECK(result_text(Op::all, Scalar(cl_uint{1})) == "true");
    CHECK(result_text(Op::any, Scalar(cl_uint{0})) == "false");
}

TEST_CASE("half and bfloat16 convert to and from float, rounding to nearest even", "[reference]") {
    CHECK(to_half(1.0f).bits == 0x3c00);
    CHECK(to_half(-2.0f).bits == 0xc000);
    CHECK(to_half(65504.0f).bits == 0x7bff);
    CHECK(to_half(65520.0f).bits == 0x7c00); // rounds past the largest: infinity
    CHECK(to_half(65519.0f).bits == 0x7bff);
    CHECK(to_half(0x1p-24f).bits == 0x0001);        // the smallest subnormal
    CHECK(to_half(0x1p-25f).bits == 0x0000);        // a tie, to even: zero
    CHECK(to_half(0x1.8p-24f).bits == 0x0002);      // a tie, to even: 2
    CHECK(to_half(1.0f + 0x1p-11f).bits == 0x3c00); // a tie, to even
    CHECK(to_half(1.0f + 0x3p-11f).bits == 0x3c02);
    CHECK(to_half(-0.0f).bits == 0x8000);
    CHECK(to_half(INFINITY).bits == 0x7c00);
    CHECK((to_half(NAN).bits & 0x7fff) > 0x7c00);
    for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const Half half{static_cast<std::uint16_t>(bits)};
        const float value = to_float(half);
        if (!std::isnan(value))
            REQUIRE(to_half(value) == half);
    }
    CHECK(to_float(Half{0x3555}) == 0x1.554p-2f);
    CHECK(to_bfloat16(1.0f).bits == 0x3f80);
    CHECK(to_bfloat16(1.0f + 0x1p-8f).bits == 0x3f80); // a tie, to even
    CHECK(to_bfloat16(1.0f + 0x3p-8f).bits == 0x3f82);
    CHECK(to_float(BFloat16{0xc040}) == -3.0f);
}

TEST_CASE("a floating-point sum with a NaN or an infinity is what IEEE addition makes it",
          "[reference]") {
    const auto inf = std::numeric_limits<cl_double>::infinity();
    const auto nan = std::numeric_limits<cl_double>::quiet_NaN();
    CHECK(reduce(Op::sum, std::vector<cl_double>{1, inf, 2}) == Scalar(inf));
    CHECK(reduce(Op::sum, std::vector<cl_float>{1, -INFINITY, 2}) == Scalar(-INFINITY));
    CHECK(same_value(reduce(Op::sum, std::vector<cl_double>{inf, 1, -inf}), Scalar(nan)));
    CHECK(same_value(reduce(Op::sum, std::vector<cl_float>{1, NAN}), Scalar(cl_float{NAN})));
    // Across the parallel chunks, the infinity in one of them and finite sums in the others.
    std::vector<cl_double> long_input(300007, 1.5);
    long_input[200000] = -inf;
    CHECK(reduce(Op::sum, long_input) == Scalar(-inf));
    // The magnitude and the grain are the finite values'.
    const auto reference = host_reduce(Op::sum, std::vector<cl_double>{0.75, inf, -2.5, 0}, 4);
    CHECK(reference.magnitude == 3.25);
    CHECK(reference.grain == 0.25);
    CHECK(host_reduce(Op::sum, std::vector<cl_float>{0, -0.0f}, 2).grain == inf);
    CHECK(host_reduce(Op::sum, std::vector<cl_float>{0x1p-149f, 3}, 2).grain == 0x1p-149);
}

TEST_CASE("a result equals the reference when both are NaN, and +0 equals -0", "[reference]") {
    CHECK(same_value(Scalar(cl_float{NAN}), Scalar(cl_float{-NAN})));
    CHECK(same_value(Scalar(cl_double{-0.0}), Scalar(cl_double{0.0})));
    CHECK(same_value(Scalar(cl_double{INFINITY}), Scalar(cl_double{INFINITY})));
    CHECK_FALSE(same_value(Scalar(cl_double{INFINITY}), Scalar(cl_double{-INFINITY})));
    CHECK_FALSE(same_value(Scalar(cl_float{NAN}), Scalar(cl_float{1})));
    CHECK_FALSE(same_value(Scalar(cl_int{1}), Scalar(cl_int{2})));
}

TEST_CASE("the host reference names the method it ran", "[reference]") {
    const auto float_sum = host_reduce(Op::sum, std::vector<cl_float>{1, 2}, 2);
    CHECK(float_sum.method == host_reduce_method(Op::sum, DataType::float32));
    CHECK(float_sum.method.find("exact sum rounded once") == 0);
    CHECK(host_reduce(Op::max, std::vector<cl_float>{1, 2}, 2).method.find("chunks of") == 0);
    CHECK(host_reduce(Op::sum, std::vector<cl_int>{1, 2}, 2).method.find("chunks of") == 0);
}

TEST_CASE("floating-point sums are exact, with the sum of magnitudes beside them", "[reference]") {
    // 1 + 2^-60 + ... - 1: a plain double sum loses every small term.
    std::vector<cl_double> values{1.0};
    for (int i = 0; i < 1000; ++i)
        values.push_back(0x1p-60);
    values.push_back(-1.0);
    const auto reference = host_reduce(Op::sum, values, values.size());
    CHECK(std::get<cl_double>(reference.value) == 1000 * 0x1p-60);
    CHECK(reference.magnitude >= 2.0);

    // A float sum is rounded once, from the exact sum.
    const std::vector<cl_float> floats{16777216.0f, 1.0f, 1.0f};
    CHECK(host_reduce(Op::sum, floats, 3).value == Scalar(cl_float{16777218.0f}));
}

TEST_CASE("the host reference agrees with a plain loop on random input", "[reference]") {
    // A floating-point sum too: its random values are small integers, exact in any order.
    for (const auto& type : all_types())
        for (const auto& op : all_ops()) {
            if (op.op == Op::custom) // no host twin
                continue;
            INFO(type.name << " " << op.name);
            const auto values = random_values(type.type, op.op, 300017, 7);
            const auto accumulator = accumulator_for(type.type, op.op);
            const auto expected = visit_accumulator(accumulator, [&](auto zero) {
                using A = decltype(zero);
                return std::visit(
                    [&](const auto& vector) {
                        A result = identity_of<A>(op.op);
                        for (const auto value : vector)
                            result =
                                combine(op.op, result,
                                        to_accumulator<A>(value, map_of(op.op, HostMap::none)));
                        return Scalar(result);
                    },
                    values);
            });
            CHECK(same_value(host_reduce(op.op, values, length_of(values)).value, expected));
        }
}

TEST_CASE("random input depends only on seed and index", "[reference]") {
    for (const auto& type : all_types())
        for (const auto op : {Op::sum, Op::min, Op::max}) {
            INFO(type.name << " " << name_of(op));
            const auto longer = random_values(type.type, op, 5000, 42);
            auto shorter = random_values(type.type, op, 1000, 42);
            CHECK(type_of(longer) == type.type);
            std::visit(
                [&](auto& short_values) {
                    const auto& long_values =
                        std::get<std::decay_t<decltype(short_values)>>(longer);
                    CHECK(
                        std::equal(short_values.begin(), short_values.end(), long_values.begin()));
                },
                shorter);
            CHECK(random_values(type.type, op, 1000, 43) != shorter);
        }
    // Integers spread over the whole range, so that sums overflow; floats for min and max in
    // [-1, 1).
    const auto ints =
        std::get<std::vector<cl_int>>(random_values(DataType::int32, Op::sum, 5000, 42));
    CHECK(std::any_of(ints.begin(), ints.end(), [](cl_int v) { return v < -(1 << 30); }));
    CHECK(std::any_of(ints.begin(), ints.end(), [](cl_int v) { return v > (1 << 30); }));
    const auto floats =
        std::get<std::vector<cl_float>>(random_values(DataType::float32, Op::min, 5000, 42));
    CHECK(std::all_of(floats.begin(), floats.end(), [](cl_float v) { return v >= -1 && v < 1; }));
    CHECK(*std::min_element(floats.begin(), floats.end()) < -0.99f);
    CHECK(*std::max_element(floats.begin(), floats.end()) > 0.99f);
}

TEST_CASE("random floating-point sums are nonzero integers from -8 to 8", "[reference]") {
    const auto doubles =
        std::get<std::vector<cl_double>>(random_values(DataType::float64, Op::sum, 5000, 42));
    std::set<cl_double> drawn(doubles.begin(), doubles.end());
    std::set<cl_double> expected;
    for (int magnitude = 1; magnitude <= largest_random_addend; ++magnitude)
        expected.insert({cl_double(magnitude), -cl_double(magnitude)});
    CHECK(drawn == expected);
    const auto floats =
        std::get<std::vector<cl_float>>(random_values(DataType::float32, Op::sum, 1000, 42));
    CHECK(std::equal(floats.begin(), floats.end(), doubles.begin()));
}

TEST_CASE("every type's table row names itself", "[types]") {
    for (const auto& type : all_types()) {
        CHECK(info(type.type).name == type.name);
        CHECK(to_string(scalar_from_bytes(type.type, "\0\0\0\0\0\0\0\0")) == "0");
    }
    // The shortest text that reads back as the same value, as NumPy's repr.
    CHECK(to_string(Scalar(cl_float{0.1f})) == "0.1");
    CHECK(to_string(Scalar(cl_double{-5.085743453373197})) == "-5.085743453373197");
    CHECK(to_string(Scalar(cl_float{-0.999608278f})) == "-0.9996083");
    CHECK(to_string(Scalar(cl_double{1e-300})) == "1e-300");
    CHECK(to_string(Scalar(cl_long{LLONG_MIN})) == "-9223372036854775808");
}

TEST_CASE("non-finite values print as nan, inf and -inf, whatever a NaN's sign", "[types]") {
    const auto nan = std::numeric_limits<cl_double>::quiet_NaN();
    CHECK(to_string(Scalar(nan)) == "nan");
    CHECK(to_string(Scalar(-nan)) == "nan");
    CHECK(to_string(Scalar(static_cast<cl_float>(-nan))) == "nan");
    CHECK(to_string(Scalar(std::numeric_limits<cl_float>::infinity())) == "inf");
    CHECK(to_string(Scalar(-std::numeric_limits<cl_double>::infinity())) == "-inf");
}

TEST_CASE("memory sizes print in one set of binary units", "[types]") {
    CHECK(bytes_text(100, 4) == "400 B");
    CHECK(bytes_text(1 << 20, 4) == "4.0 MiB");
    CHECK(bytes_text(std::uint64_t{1} << 32, 4) == "16.0 GiB");
    CHECK(bytes_text(std::uint64_t{1} << 60, 4) == "4.0 EiB");
    CHECK(bytes_text(UINT64_MAX, 8) == "128.0 EiB");
}

TEST_CASE("the host applies the maps it recognises as the kernel does", "[reference]") {
    CHECK(host_map("x * x") == HostMap::square);
    CHECK(host_map("x*x") == HostMap::square);
    CHECK(host_map("fabs(x)") == HostMap::absolute);
    CHECK(host_map("x != 0") == HostMap::nonzero);
    CHECK(host_map("") == HostMap::none);
    CHECK(!host_map("x * i"));
    const HostValues ints(std::vector<cl_int>{3, -4, 0, 65536});
    // 65536^2 wraps to 0 in int, as the kernel's x * x does.
    CHECK(host_reduce(Op::sum, ints, 4, {}, HostMap::square).value == Scalar(cl_int{25}));
    CHECK(host_reduce(Op::sum, ints, 4, {}, HostMap::nonzero).value == Scalar(cl_int{3}));
    const HostValues bytes(std::vector<cl_char>{-128, 127});
    CHECK(host_reduce(Op::sum, bytes, 2, {}, HostMap::square).value ==
          Scalar(cl_long{16384 + 16129}));
    const HostValues doubles(std::vector<cl_double>{-2.5, 1.5});
    CHECK(host_reduce(Op::max, doubles, 2, {}, HostMap::absolute).value == Scalar(cl_double{2.5}));
    CHECK_THROWS_WITH(host_reduce(Op::custom, doubles, 2), Catch::Contains("no host reference"));
}

TEST_CASE("each type's row is consistent: its place, its host type, its accumulator, its dtype",
          "[reference]") {
    std::set<std::string> dtypes;
    for (std::size_t i = 0; i < all_types().size(); ++i) {
        const auto& type = all_types()[i];
        INFO(type.name);
        CHECK(static_cast<std::size_t>(type.type) == i);
        CHECK(visit_type(type.type, [](auto zero) { return sizeof zero; }) == type.size);
        CHECK(accumulates(type.accumulator));
        CHECK(info(type.accumulator).floating() == type.floating());
        if (type.npy)
            CHECK(dtypes.insert(std::string(type.npy).substr(1)).second);
    }
    for (std::size_t i = 0; i < all_ops().size(); ++i)
        CHECK(static_cast<std::size_t>(all_ops()[i].op) == i);
    CHECK(all_ops().size() == op_count);
}
