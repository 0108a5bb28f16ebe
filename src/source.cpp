#include "detail/source.hpp"

#include "clreduce/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <system_error>

namespace clreduce {
namespace {

namespace fs = std::filesystem;

/// The file's bytes; a file that cannot be opened or read is refused with the system's
/// reason, an empty one as empty (it would build to a program without kernels).
std::string read_whole(const fs::path& path) {
    const auto refuse = [&](const std::string& reason) {
        throw Error(Errc::kernel_source,
                    "cannot read kernel file " + path.string() + ": " + reason);
    };
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               std::fclose);
    if (!file)
        refuse(std::strerror(errno));
    std::string text;
    char block[65536];
    std::size_t count;
    while ((count = std::fread(block, 1, sizeof block, file.get())) > 0)
        text.append(block, count);
    if (std::ferror(file.get()))
        refuse(std::strerror(errno));
    if (text.empty())
        throw Error(Errc::kernel_source, "kernel file " + path.string() + " is empty");
    return text;
}

/// `text` with every $T replaced by `type` and every $U by `twin`.
std::string with_types(std::string text, const std::string& type, const std::string& twin) {
    for (const auto& [placeholder, name] : {std::pair{"$T", &type}, std::pair{"$U", &twin}})
        for (auto at = text.find(placeholder); at != std::string::npos;
             at = text.find(placeholder, at + name->size()))
            text.replace(at, 2, *name);
    return text;
}

/// The OpenCL C expression of op(a, b) on `accumulator` or, with `vector` "4", its 4-vector.
/// Integer sums and products go through the unsigned twin, whose + and * wrap where the
/// signed ones overflow.
std::string combination(const OpInfo& op, const TypeInfo& accumulator, const std::string& vector) {
    if (accumulator.floating() && op.floating)
        return op.floating;
    return with_types(op.integer, accumulator.cl_value + vector,
                      accumulator.wrapping ? accumulator.wrapping + vector : std::string());
}

/// Defines <scope>_reduce_op() on top of the built-in <scope>_reduce_<op>(). An integer sum
/// uses the built-in's unsigned overload, which wraps around where the signed one would
/// overflow.
std::string collective_relay(const std::string& scope, const TypeInfo& type, const OpInfo& op) {
    const auto builtin = scope + "_reduce_" + op.builtin;
    const bool wrap = op.op == Op::sum && !type.floating();
    const std::string cl = type.cl_value;
    const auto body =
        wrap ? "as_" + cl + "(" + builtin + "(as_" + type.wrapping + "(x)))" : builtin + "(x)";
    return "accum_t " + scope + "_reduce_op(accum_t x) { return " + body + "; }\n";
}

/// Whether read4 may combine a load's quarters before it maps them (reduce.cl): where the
/// program reads an integer type's values, 8 or 16 a load, that no map changes one by one.
bool combines_before_map(const TypeInfo& input, Reads reads, bool mapped) {
    return reads == Reads::values && !mapped && !input.floating() && input.size <= 2;
}

/// Whether `op` returns one of its operands (min, max, nanmin, nanmax), which it computes
/// exactly in any type that holds them.
bool picks_an_operand(const OpInfo& op) {
    return op.rounding == Rounding::none && !op.indexed && !op.map;
}

/// Whether read4 takes 1-byte values out of 32-bit words and the whole fold runs in int or uint
/// lanes (REDUCE_FOLD_COMBINED): min and max of bytes (combined_type()).
bool folds_bytes_in_lanes(const TypeInfo& input, const OpInfo& op) {
    return input.size == 1 && picks_an_operand(op);
}

/// Whether the op's least value wins (argmin, whose identity is the highest), else its greatest.
bool least_wins(const OpInfo& op) {
    return op.identity == Identity::highest;
}

/// Whether the integer type is signed: its unsigned twin is another type.
bool is_signed(const TypeInfo& integer) {
    return std::string(integer.cl_value) != integer.wrapping;
}

/// Whether read4 tests a load's 1-byte values a 32-bit word at a time (REDUCE_TEST_BYTES): any
/// and all, and for bools, whose values are 0 and 1 (types.cpp), the ops that are one of them:
/// the product and min are their all, max their any (on an H100 at 2^28 the product of bools
/// took 100 to 101 us value by value, 94 to 96 so, their min 97 to 99 us in 32-bit lanes, 96
/// to 98 so; docs/ops-and-types.md).
bool tests_bytes(const TypeInfo& input, Op op) {
    const bool bools = input.type == DataType::boolean;
    return op == Op::any || op == Op::all ||
           (bools && (op == Op::prod || picks_an_operand(info(op))));
}

/// Whether a test of bytes (tests_bytes()) is for all of them (REDUCE_TEST_ALL), else for any.
bool tests_all_bytes(Op op) {
    return !(op == Op::any || op == Op::max || op == Op::nanmax);
}

/// The type in which read4 combines a load's quarters with op4_values() before it maps them,
/// where it may. For min and max, which pick one of the values: int or uint for 1-byte
/// values, in which the whole fold runs (REDUCE_FOLD_COMBINED: the uint8 max took 103 us at
/// 2^28 on an H100 with the lanes widened to 64 bits a load, 94 to 96 so;
/// docs/ops-and-types.md), else the values' own type. int for an integer product of signed
/// values, in which a lane's 4 int8 or 2 int16 values multiply exactly (at most 2^28 and
/// 2^30 in magnitude), uint for unsigned ones (below 2^32), and the integer accumulator's
/// product of that wraps around as the values' one by one does; where a uint would not
/// convert to the accumulator exactly or modulo its range (a signed 32-bit accumulator), the
/// values widen one by one. A signed value widened to 64 bits makes each of its products a
/// full 64-bit multiplication (the int8 product took 157 us on an H100 at 2^28, 107 so). An
/// unsigned one's zero upper half makes them cheaper, but not enough on an H200: the uint8
/// product of 2^28 values took 80.6 to 81.1 us so, 67.9 to 68.3 combined in a uint (the H100
/// had measured it 2% slower; docs/ops-and-types.md).
const TypeInfo* combined_type(const TypeInfo& input, const TypeInfo& accumulator, const OpInfo& op,
                              Reads reads, bool mapped) {
    if (!combines_before_map(input, reads, mapped) || tests_bytes(input, op.op))
        return nullptr;
    if (folds_bytes_in_lanes(input, op))
        return &info(is_signed(input) ? DataType::int32 : DataType::uint32);
    if (picks_an_operand(op))
        return &input;
    // Only an integer product combines in 32 bits, and only an integer has a signedness
    // (is_signed() reads its unsigned twin, which a float lacks).
    if (op.op != Op::prod || accumulator.floating())
        return nullptr;
    const bool converts = is_signed(input) || !is_signed(accumulator) || accumulator.size == 8;
    return converts ? &info(is_signed(input) ? DataType::int32 : DataType::uint32) : nullptr;
}

/// The flags by which read4 combines a load's quarters before it maps them, where it may:
/// with op4_values() (REDUCE_COMBINE_VALUES, and REDUCE_COMBINED where that is not in the
/// values' type: combined_type(); for min and max of 1-byte values REDUCE_FOLD_COMBINED, and
/// REDUCE_SIGNED_BYTES for int8's), as bytes in 32-bit words for a sum of 1-byte values
/// (REDUCE_SUM_BYTES; REDUCE_SIGNED_BYTES for int8's) and for their any and all and the
/// product of bools (tests_bytes()); else none.
std::string quarter_options(const TypeInfo& input, const TypeInfo& accumulator, Op op, Reads reads,
                            bool mapped) {
    if (const auto* combined = combined_type(input, accumulator, info(op), reads, mapped)) {
        const bool fold_bytes = folds_bytes_in_lanes(input, info(op));
        // A CPU's fold takes min and max of bytes in their own type (REDUCE_OWN_TYPE_OP).
        return std::string(" -D REDUCE_COMBINE_VALUES") +
               (combined == &input ? ""
                                   : " -D REDUCE_COMBINED=" + std::string(combined->cl_value)) +
               (fold_bytes && is_signed(input) ? " -D REDUCE_SIGNED_BYTES" : "") +
               (fold_bytes ? " -D REDUCE_FOLD_COMBINED -D REDUCE_OWN_TYPE_OP=" +
                                 std::string(info(op).builtin)
                           : "");
    }
    if (!combines_before_map(input, reads, mapped) || input.size != 1)
        return "";
    if (tests_bytes(input, op))
        return std::string(" -D REDUCE_TEST_BYTES") +
               (tests_all_bytes(op) ? " -D REDUCE_TEST_ALL" : "");
    if (op != Op::sum)
        return "";
    // A CPU's fold sums bytes into a 64-bit integer accumulator in 16-bit lanes
    // (REDUCE_WIDENING_SUM); other accumulators keep GPUs' fold.
    const bool widens = !accumulator.floating() && accumulator.size == 8;
    const std::string widened = is_signed(input) ? "short" : "ushort";
    return std::string(" -D REDUCE_SUM_BYTES") +
           (is_signed(input) ? " -D REDUCE_SIGNED_BYTES" : "") +
           (widens ? " -D REDUCE_WIDENING_SUM=" + widened : "");
}

/// op4_values(), where read4 combines a load's quarters with it (combined_type()).
std::string quarters_op(const OpInfo& op, const TypeInfo& input, const TypeInfo& accumulator,
                        Reads reads, bool mapped) {
    const auto* combined = combined_type(input, accumulator, op, reads, mapped);
    if (!combined)
        return "";
    const std::string vector = std::string(combined->cl_value) + "4";
    return vector + " op4_values(" + vector + " a, " + vector + " b) { return " +
           combination(op, *combined, "4") + "; }\n";
}

/// load() and loadn(): the row's, else an element and a vector of the buffer.
std::string loads(const TypeInfo& input) {
    const std::string load = input.load ? input.load : "in[i]";
    const std::string loadn = input.loadn ? input.loadn : "return ((global const valuen_t*)in)[v];";
    return "value_t load(global const input_t* in, ulong i) { return " + load + "; }\n" +
           "valuen_t loadn(global const input_t* in, ulong v) { " + loadn + " }\n";
}

/// `lane` (over $L, the lane x, y, z or w, and $I, its index from i) on each lane, returned as
/// an accum4_t: a vector or, for argmin and argmax, a struct of four pairs.
std::string each_lane(const std::string& lane, bool indexed) {
    std::string lanes;
    for (const auto& [name, index] : {std::pair{"x", "i"}, std::pair{"y", "i + 1"},
                                      std::pair{"z", "i + 2"}, std::pair{"w", "i + 3"}}) {
        std::string text = lane;
        for (auto at = text.find('$'); at != std::string::npos; at = text.find('$', at))
            text.replace(at, 2, text[at + 1] == 'L' ? name : index);
        lanes += (lanes.empty() ? "" : ", ") + text;
    }
    return indexed ? "{ accum4_t lanes = {" + lanes + "}; return lanes; }"
                   : "{ return (accum4_t)(" + lanes + "); }";
}

/// An accum_t of `value`: the value itself or, for argmin and argmax, its pair with `index`.
std::string returning(const std::string& value, const std::string& index, bool indexed) {
    return indexed ? "{ accum_t pair = {" + value + ", " + index + "}; return pair; }"
                   : "{ return " + value + "; }";
}

/// map() and map4(): the user's, the op's, else the value itself or, for another accumulator,
/// converted. argmin and argmax pair the value with its index, where they read values.
std::string maps(const OpInfo& op, const TypeInfo& value, const TypeInfo& accumulator,
                 const std::string& user_map, Reads reads) {
    const std::string map_head = "accum_t map(value_t x, ulong i) ";
    const std::string map4_head = "accum4_t map4(value4_t x, ulong i) ";
    const std::string accum = accumulator.cl_value;
    if (op.indexed && reads == Reads::values) {
        const auto mapped = "(" + accum + ")(" + (user_map.empty() ? "x" : user_map) + ")";
        return map_head + returning(mapped, "(long)i", true) + "\n" + map4_head +
               each_lane("map(x.$L, $I)", true) + "\n";
    }
    if (!user_map.empty())
        return map_head + "{ return (accum_t)(" + user_map + "); }\n" + map4_head +
               each_lane("map(x.$L, $I)", false) + "\n";
    const bool same = reads == Reads::partials || std::string(value.cl_value) == accum;
    const std::string map = op.map ? op.map : same ? "x" : "(accum_t)x";
    const std::string map4 = op.map4 ? op.map4 : same ? "x" : "convert_" + accum + "4(x)";
    return map_head + "{ return " + map + "; }\n" + map4_head + "{ return " + map4 + "; }\n";
}

/// The body of a function of argmin's or argmax's pairs (or leads) a and b, of `type`, that
/// returns b where `condition` holds, else a: field by field, as reduce.cl's take_in_order(),
/// since ?: on a whole struct made NVIDIA's compiler copy it through local memory.
std::string pair_that_wins(const std::string& type, const std::string& condition) {
    return "{ const bool b_wins = (" + condition + "); const " + type +
           " won = {b_wins ? b.value : a.value, b_wins ? b.index : a.index}; return won; }";
}

/// wins_in_order() and lead_op() for argmin and argmax reading values (REDUCE_INDEXING):
/// the row's cheaper condition, which holds only where b's values come after a's, and its
/// full one on leads; and wins4_in_order(), the cheaper one on lanes, whose vector operators
/// give -1 or 0 a lane. Partials come in no such order, and have no leads.
std::string lead_conditions(const OpInfo& row, const TypeInfo& accumulator, Reads reads) {
    if (!row.indexed || reads != Reads::values)
        return {};
    const std::string in_order =
        accumulator.floating() ? row.floating_in_order : row.integer_in_order;
    return "bool wins_in_order(lead_t a, lead_t b) { return " + in_order +
           "; }\nlead_t lead_op(lead_t a, lead_t b) " +
           pair_that_wins("lead_t", combination(row, accumulator, "")) +
           "\nREDUCE_LEAD_MASK4 wins4_in_order(lead_lanes_t a, lead_lanes_t b) { return " +
           in_order + "; }\n";
}

/// The 32-bit integer type that holds each value of argmin's or argmax's first pass exactly,
/// where its accumulator is wider: that of 1- and 2-byte integer values that no map changes
/// (their accumulator is 64 bits, as NumPy's for sums). Else none.
std::optional<DataType> narrow_lead(const TypeInfo& input, Op op, Reads reads, bool mapped) {
    if (!info(op).indexed || reads != Reads::values || mapped || input.floating() || input.size > 2)
        return std::nullopt;
    return is_signed(input) ? DataType::int32 : DataType::uint32;
}

/// rank_of() where pairs_rank_as_keys(): the value's place in the op's order as 32 bits, the
/// winner's highest, NaN above every number, -0 and +0 equal. A float ranks by its bits,
/// whose order is the numbers' for positive values and the reverse for negative ones. A
/// 64-bit accumulator's values rank as the 32-bit lead that holds them (narrow_lead()), its
/// identity saturated into it (LONG_MIN to INT_MIN), still below or above every value.
std::string rank_definition(const OpInfo& row, const TypeInfo& input, const TypeInfo& accumulator,
                            Reads reads, bool mapped) {
    if (!pairs_rank_as_keys(row.op, input.type, accumulator.type, mapped, reads))
        return {};
    const auto ranked =
        accumulator.size == 4 ? accumulator.type : *narrow_lead(input, row.op, reads, mapped);
    const std::string value = accumulator.size == 4
                                  ? "value"
                                  : "convert_" + std::string(info(ranked).cl_value) + "_sat(value)";
    const std::string ascending =
        accumulator.floating()       ? "(value == 0.0f ? 0x80000000u : as_uint(value) >> 31 ? "
                                       "~as_uint(value) : as_uint(value) | 0x80000000u)"
        : ranked == DataType::uint32 ? value
                                     : "(as_uint(" + value + ") ^ 0x80000000u)";
    const std::string order = least_wins(row) ? "~" + ascending : ascending;
    return "uint rank_of(REDUCE_ACCUM value) { return " +
           (accumulator.floating() ? "isnan(value) ? UINT_MAX : " + order : order) + "; }\n";
}

/// identity(), splat4(), op() and op4(): the user's, the op's row's, or for argmin and argmax
/// the pair that wins.
std::string combinations(Op op, DataType accumulator, const Expressions& user) {
    const auto& row = info(op);
    const bool custom = op == Op::custom;
    const bool indexed = row.indexed;
    const auto identity =
        custom ? "(accum_t)(" + user.identity + ")" : identity_text(op, accumulator);
    std::string text = "accum_t identity(void) " + returning(identity, "LONG_MAX", indexed) + "\n";
    text += "accum4_t splat4(accum_t x) " +
            (indexed ? std::string("{ accum4_t lanes = {x, x, x, x}; return lanes; }")
                     : std::string("{ return (accum4_t)(x); }")) +
            "\n";
    const auto& accum = info(accumulator);
    const auto scalar = custom ? user.reduce : combination(row, accum, "");
    text += "accum_t op(accum_t a, accum_t b) " +
            (indexed ? pair_that_wins("accum_t", scalar) : "{ return " + scalar + "; }") + "\n";
    text += "accum4_t op4(accum4_t a, accum4_t b) " +
            (custom || indexed ? each_lane("op(a.$L, b.$L)", indexed)
                               : "{ return " + combination(row, accum, "4") + "; }") +
            "\n";
    return text;
}

/// -D REDUCE_LEAD, the 32-bit type in which argmin's and argmax's first pass keeps its leads,
/// where the accumulator is wider than the values need (narrow_lead()). With 64-bit leads, the
/// int8 argmax of 2^28 values took 2116 us on an H100, 100 with these (the int8 max 95;
/// docs/ops-and-types.md). Else none.
std::string lead_option(const TypeInfo& input, Op op, Reads reads, bool mapped) {
    const auto lead = narrow_lead(input, op, reads, mapped);
    if (!lead)
        return "";
    // 1-byte values give one lead a 32-bit word (REDUCE_LEAD_WORDS), their bytes taken out by
    // shifts, int8's sign extended: the int8 argmax of 2^28 took 97.7 us so, 100.5 with a lead
    // a byte. bool's bytes, 0 or 1, are compared a word at a time (REDUCE_BOOL_LEADS).
    const bool signed_bytes = input.size == 1 && is_signed(input);
    const bool words = input.size == 1;
    // A CPU's fold takes whole blocks of values by their best value first (REDUCE_OWN_TYPE_OP,
    // reduce.cl): the extreme that wins.
    return std::string(" -D REDUCE_LEAD=") + info(*lead).cl_value +
           (words ? " -D REDUCE_LEAD_WORDS" : "") +
           (signed_bytes ? " -D REDUCE_SIGNED_BYTES" : "") +
           (input.type == DataType::boolean ? " -D REDUCE_BOOL_LEADS" : "") +
           (least_wins(info(op)) ? " -D REDUCE_OWN_TYPE_OP=min" : " -D REDUCE_OWN_TYPE_OP=max");
}

/// -D REDUCE_LEAD_MASK4, what comparing two vectors of argmin's or argmax's leads gives: the
/// signed integers as wide as a lead's value, 32 bits (narrow_lead()'s, or a 4-byte
/// accumulator's) or 64 (every accumulator is one or the other). Else none.
std::string lead_mask_option(const TypeInfo& input, const TypeInfo& accumulator, Op op, Reads reads,
                             bool mapped) {
    if (!info(op).indexed || reads != Reads::values)
        return "";
    const bool wide = !narrow_lead(input, op, reads, mapped) && accumulator.size == 8;
    return std::string(" -D REDUCE_LEAD_MASK4=") + (wide ? "long4" : "int4");
}

} // namespace

bool picks_bytes_in_words(DataType input, Op op, Reads reads, bool mapped) {
    const auto& in = info(input);
    const bool folds_in_lanes = combines_before_map(in, reads, mapped) && !tests_bytes(in, op) &&
                                folds_bytes_in_lanes(in, info(op));
    return folds_in_lanes || (in.size == 1 && narrow_lead(in, op, reads, mapped));
}

std::string reduce_kernel_source(const std::string& kernel_dir) {
    if (kernel_dir.empty())
        return std::string(embedded_kernel_source());
    return read_kernel_file("reduce.cl", {kernel_dir});
}

std::string read_kernel_file(const std::string& file_name, const std::vector<fs::path>& folders) {
    std::string tried;
    for (const auto& folder : folders) {
        const auto path = folder / file_name;
        std::error_code error;
        if (fs::exists(path, error)) {
            if (!fs::is_regular_file(path, error))
                throw Error(Errc::kernel_source,
                            "cannot read kernel file " + path.string() + ": not a regular file");
            return read_whole(path);
        }
        tried += (tried.empty() ? "" : ", ") + path.lexically_normal().string();
    }
    throw Error(Errc::kernel_source, "kernel file " + file_name + " not found; tried " + tried);
}

bool has_builtin(Op op, DataType accumulator) {
    const auto& row = info(op);
    return row.builtin && (row.builtin_for_floating || !info(accumulator).floating());
}

unsigned loads_per_accumulator(DataType input, DataType accumulator, Op op, Reads reads,
                               bool mapped) {
    const auto& in = info(input);
    if (pairs_rank_as_keys(op, input, accumulator, mapped, reads))
        return 2; // argmin's and argmax's leads of 32 bits
    if (!combines_before_map(in, reads, mapped))
        return 1;
    const auto* combined = combined_type(in, info(accumulator), info(op), reads, mapped);
    if (in.size == 2)
        return combined == &in ? 2 : 1; // min and max of 2-byte integers, in their own type
    const bool product_in_int = op == Op::prod && combined && is_signed(in);
    return tests_bytes(in, op) || product_in_int ? 2 : 1;
}

bool pairs_rank_as_keys(Op op, DataType input, DataType accumulator, bool mapped, Reads reads) {
    return info(op).indexed && reads == Reads::values &&
           (info(accumulator).size == 4 || narrow_lead(info(input), op, reads, mapped));
}

std::string type_options(DataType input, DataType accumulator, Op op, Reads reads, bool mapped) {
    const auto& in = info(input);
    const bool indexed = info(op).indexed;
    // argmin's and argmax's partials are pairs (accum_t), and four in a row an accum4_t.
    const bool pairs = indexed && reads == Reads::partials;
    const std::string value = pairs ? "accum_t" : in.cl_value;
    const std::string accum = info(accumulator).cl_value;
    // Partials are read 4 at a time, as are the 4- and 8-byte types; narrower ones 8 or 16.
    const auto per_load = std::to_string(in.values_per_load());
    return std::string(indexed ? "-D REDUCE_INDEXED " : "") +
           (indexed && !pairs ? "-D REDUCE_INDEXING " : "") +
           "-D REDUCE_INPUT=" + (pairs ? value : in.cl_storage) + " -D REDUCE_VALUE=" + value +
           " -D REDUCE_VALUE4=" + (pairs ? "accum4_t" : value + "4") +
           " -D REDUCE_VALUEN=" + (pairs ? "accum4_t" : value + per_load) +
           " -D REDUCE_VALUES_PER_LOAD=" + per_load + " -D REDUCE_ACCUM=" + accum +
           " -D REDUCE_ACCUM4=" + accum + "4" +
           quarter_options(in, info(accumulator), op, reads, mapped) +
           lead_option(in, op, reads, mapped) +
           lead_mask_option(in, info(accumulator), op, reads, mapped) +
           (loads_per_accumulator(input, accumulator, op, reads, mapped) == 2
                ? " -D REDUCE_LOADS_PER_ACCUMULATOR=2"
                : "");
}

std::string op_definitions(Op op, Path path, DataType input, DataType accumulator,
                           const Expressions& user, Reads reads) {
    const auto& row = info(op);
    const auto& accum = info(accumulator);
    std::string text = "\n// Appended by clreduce for op " + std::string(row.name) + " of " +
                       info(input).name + " accumulated in " + accum.name + " on the " +
                       name_of(path) + " path" + (user.map.empty() ? "" : ", mapped") + ".\n";
    text += loads(info(input));
    text += maps(row, info(input), accum, user.map, reads);
    text += combinations(op, accumulator, user);
    text += lead_conditions(row, accum, reads);
    text += rank_definition(row, info(input), accum, reads, !user.map.empty());
    text += quarters_op(row, info(input), accum, reads, !user.map.empty());
    if (path == Path::work_group)
        text += collective_relay("work_group", accum, row);
    if (path == Path::sub_group)
        text += collective_relay("sub_group", accum, row);
    return text;
}

std::string complete_kernel_source(const std::string& kernel_text, Op op, Path path, DataType input,
                                   DataType accumulator, const Expressions& user, Reads reads) {
    return kernel_text + op_definitions(op, path, input, accumulator, user, reads);
}

} // namespace clreduce
