#include "tool/options.hpp"

#include "tool/failure.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <limits>
#include <tclap/CmdLine.h>
#include <utility>
#include <vector>

namespace clreduce {
namespace {

[[noreturn]] void usage_error(const std::string& message) {
    throw Failure(ExitCode::usage, message + " (see --help)");
}

/// Each buffer or chunk is a launch of its own and a line of the report: past most_pieces,
/// the run would spend its time on launches and bookkeeping, not on reducing.
void refuse_too_many(std::uint64_t length, std::uint64_t per_piece, const std::string& option,
                     const std::string& pieces) {
    const auto count = length / per_piece + (length % per_piece != 0 ? 1 : 0);
    if (count > most_pieces)
        usage_error(option + " " + std::to_string(per_piece) + " cuts " + std::to_string(length) +
                    " values into " + std::to_string(count) + " " + pieces + ", more than " +
                    std::to_string(most_pieces) + ": give it at least " +
                    std::to_string(length / most_pieces + (length % most_pieces != 0 ? 1 : 0)));
}

/// A decimal number or 2^N, with nothing around it: no sign, no space, no suffix.
std::uint64_t parse_unsigned(const std::string& text, const std::string& what) {
    const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    const auto caret = text.find('^');
    const std::string digits = caret == std::string::npos ? text : text.substr(caret + 1);
    const bool well_formed = !digits.empty() &&
                             std::all_of(digits.begin(), digits.end(), is_digit) &&
                             (caret == std::string::npos || text.substr(0, caret) == "2");
    if (!well_formed)
        usage_error(what + " '" + text + "' is not a non-negative integer (or 2^N)");

    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    const int max_exponent = std::numeric_limits<std::uint64_t>::digits - 1;
    if (error == std::errc::result_out_of_range ||
        (caret != std::string::npos && value > static_cast<std::uint64_t>(max_exponent)))
        usage_error(what + " " + text + " is out of range (at most " +
                    std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")");
    return caret == std::string::npos ? value : std::uint64_t{1} << value;
}

std::size_t parse_index(const std::string& text, const std::string& what) {
    const auto value = parse_unsigned(text, what);
    if (value > std::numeric_limits<std::size_t>::max())
        usage_error(what + " " + text + " is out of range");
    return static_cast<std::size_t>(value);
}

template <typename Choice>
Choice choose(const std::string& name, const std::vector<std::pair<std::string, Choice>>& choices,
              const std::string& what) {
    for (const auto& [choice_name, choice] : choices)
        if (choice_name == name)
            return choice;
    usage_error("unknown " + what + " '" + name + "'");
}

template <typename Choice>
std::vector<std::string> names_of(const std::vector<std::pair<std::string, Choice>>& list) {
    std::vector<std::string> names;
    for (const auto& entry : list)
        names.push_back(entry.first);
    return names;
}

const std::vector<std::pair<std::string, cl_device_type>> device_types = {
    {"all", CL_DEVICE_TYPE_ALL},    {"cpu", CL_DEVICE_TYPE_CPU},
    {"gpu", CL_DEVICE_TYPE_GPU},    {"acc", CL_DEVICE_TYPE_ACCELERATOR},
    {"cus", CL_DEVICE_TYPE_CUSTOM}, {"def", CL_DEVICE_TYPE_DEFAULT},
};

std::vector<std::pair<std::string, Op>> ops() {
    std::vector<std::pair<std::string, Op>> names;
    for (const auto& op_info : all_ops())
        if (op_info.op != Op::custom) // --reduce makes it
            names.emplace_back(op_info.name, op_info.op);
    return names;
}

std::vector<std::pair<std::string, DataType>> data_types() {
    std::vector<std::pair<std::string, DataType>> names;
    for (const auto& type_info : all_types())
        names.emplace_back(type_info.name, type_info.type);
    return names;
}

const std::vector<std::pair<std::string, std::optional<Finish>>> finishes = {
    {"passes", Finish::passes},
    {"last-group", Finish::last_group},
    {"auto", std::nullopt},
};

/// --strategy: the reduction path.
const std::vector<std::pair<std::string, std::optional<Path>>> paths = {
    {"auto", std::nullopt},
    {"work-group", Path::work_group},
    {"sub-group", Path::sub_group},
    {"tree", Path::tree},
};

/// The entries of `text` between `separator`s; an empty one is refused, naming `option`.
std::vector<std::string> split_entries(const std::string& text, char separator,
                                       const std::string& option) {
    std::vector<std::string> entries;
    std::size_t begin = 0;
    while (true) {
        const auto end = text.find(separator, begin);
        entries.push_back(text.substr(begin, end == std::string::npos ? end : end - begin));
        if (entries.back().empty())
            usage_error(option + " '" + text + "' has an empty entry");
        if (end == std::string::npos)
            return entries;
        begin = end + 1;
    }
}

/// Refuses a shape whose values overflow 64 bits.
void values_in_shape(const std::vector<std::uint64_t>& shape, const std::string& text) {
    std::uint64_t values = 1;
    for (const auto extent : shape) {
        if (values > std::numeric_limits<std::uint64_t>::max() / extent)
            usage_error("--shape '" + text + "' holds more than 2^64 - 1 values");
        values *= extent;
    }
}

/// Pairs of flags that contradict each other, checked after parsing.
void refuse_conflicts(const std::vector<std::pair<const TCLAP::Arg*, const TCLAP::Arg*>>& pairs) {
    for (const auto& [first, second] : pairs)
        if (first->isSet() && second->isSet())
            usage_error("--" + first->getName() + " and --" + second->getName() +
                        " cannot be used together");
}

/// --list, --help and --version each answer a question of their own: any other option would
/// be ignored, so it is refused.
void refuse_beside(TCLAP::CmdLine& cmd, const TCLAP::Arg& alone) {
    if (!alone.isSet())
        return;
    for (const auto* arg : cmd.getArgList())
        if (arg != &alone && arg->isSet())
            usage_error("--" + alone.getName() + " takes no other option (--" + arg->getName() +
                        " given)");
}

/// TCLAP always adds "--ignore_rest" (also spelled "--"), which silently drops every argument
/// after it; the tool acts on every argument it is given, so the switch is taken out of the
/// command line (and of --help) and "--" is refused like any argument that is no option.
void drop_ignore_rest(TCLAP::CmdLine& cmd) {
    cmd.getArgList().remove_if(
        [](const TCLAP::Arg* arg) { return arg->getName() == TCLAP::Arg::ignoreNameString(); });
}

/// "--" and "-" name no option; TCLAP would take "--" for --ignore_rest and skip a lone "-".
void refuse_bare_dashes(const std::vector<std::string>& arguments) {
    for (const auto& argument : arguments)
        if (argument == "--" || argument == "-")
            usage_error("'" + argument +
                        "' is not an option: clreduce takes options alone, and nothing ends them");
}

/// The arguments as TCLAP reads them: the program named "clreduce" (not its path), and
/// "--name=value" split into "--name" "value", the GNU form TCLAP does not know.
std::vector<std::string> split_arguments(int argc, const char* const* argv) {
    std::vector<std::string> arguments{"clreduce"};
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        const auto equals = argument.find('=');
        if (argument.rfind("--", 0) == 0 && equals != std::string::npos) {
            arguments.push_back(argument.substr(0, equals));
            arguments.push_back(argument.substr(equals + 1));
        } else {
            arguments.push_back(argument);
        }
    }
    return arguments;
}

/// --help prints TCLAP's usage; --version one line, "clreduce <version>".
void answer_help_or_version(TCLAP::CmdLine& cmd, const TCLAP::Arg& help) {
    if (help.isSet()) {
        TCLAP::StdOutput().usage(cmd);
        return;
    }
    std::cout << cmd.getProgramName() << ' ' << cmd.getVersion() << '\n';
}

/// Which options combine, printed at the end of --help; parse_options enforces it.
constexpr const char* combination_rule =
    "Reduces an array on an OpenCL device, random values or a file's (--input), reporting "
    "every pass's device time and checking the result against the host. "
    "Options that do not apply are refused, never ignored: --list, --help and --version take "
    "no other option, and no argument ends the options ('--' is refused); "
    "the output is text (-v adds detail), the result alone (-q: one run, no warm-up, still "
    "checked unless --no-check), --json or, with --sweep, --csv, so -v and -q shape the text "
    "alone; --json prints one object, with a \"devices\" array for several devices (-d all, "
    "-d 0,1), and with --sweep one object per length, a line each (JSON Lines), printed as "
    "each is measured; --sweep reports one device; --host-input runs one length in one "
    "layout, so not with --sweep or --max-buffer; --chunk needs --host-input, "
    "--allow-unreported an explicit --strategy, a raw --input file --data-type; --exact has "
    "its own kernel, so not with --strategy, --finish, --factor, --sweep, --map, --reduce or "
    "--accumulate. "
    "--axis reduces along axes with its values on the devices or streamed to them "
    "(--host-input), so not with --sweep, --max-buffer or --kernels, and -o argmin and "
    "argmax take "
    "one axis; --shape and --output need --axis, "
    "and --shape replaces -l. "
    "--name=value is read as --name value.";

} // namespace

void refuse_too_many_pieces(const Options& options) {
    if (options.max_buffer != 0)
        refuse_too_many(options.length, options.max_buffer, "--max-buffer", "buffers");
    if (options.chunk != 0)
        refuse_too_many(options.length, options.chunk, "--chunk", "chunks");
}

std::uint64_t parse_count(const std::string& text, const std::string& what) {
    const auto value = parse_unsigned(text, what);
    if (value == 0)
        usage_error(what + " must be at least 1");
    return value;
}

std::vector<int> parse_axes(const std::string& text) {
    std::vector<int> axes;
    for (const auto& entry : split_entries(text, ',', "--axis")) {
        int axis = 0;
        const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), axis);
        if (error != std::errc() || end != entry.data() + entry.size())
            usage_error("--axis '" + text + "': '" + entry + "' is not an axis (an integer)");
        if (std::find(axes.begin(), axes.end(), axis) != axes.end())
            usage_error("--axis '" + text + "' names axis " + entry + " twice");
        axes.push_back(axis);
    }
    return axes;
}

std::vector<std::uint64_t> parse_shape(const std::string& text) {
    std::vector<std::uint64_t> shape;
    for (const auto& entry : split_entries(text, 'x', "--shape"))
        shape.push_back(parse_count(entry, "--shape '" + text + "': extent"));
    values_in_shape(shape, text);
    return shape;
}

void parse_device_list(const std::string& text, DeviceTriplet& triplet) {
    triplet.all = text == "all";
    triplet.devices.clear();
    if (triplet.all)
        return;
    for (const auto& entry : split_entries(text, ',', "--device")) {
        const auto index = parse_index(entry, "--device");
        if (std::find(triplet.devices.begin(), triplet.devices.end(), index) !=
            triplet.devices.end())
            usage_error("--device '" + text + "' names device " + entry + " twice");
        triplet.devices.push_back(index);
    }
}

cl_device_type parse_device_type(const std::string& name) {
    return choose(name, device_types, "device type");
}

std::optional<Options> parse_options(int argc, const char* const* argv) {
    // --help and --version are plain switches, answered after the command line is read, so
    // that any other option beside them is refused instead of ignored.
    TCLAP::CmdLine cmd(combination_rule, ' ', CLREDUCE_VERSION, false);
    cmd.setExceptionHandling(false);
    drop_ignore_rest(cmd);

    // TCLAP lists arguments in reverse order of creation; create them bottom-up.
    TCLAP::SwitchArg help("h", "help", "Print this help, then exit", cmd);
    TCLAP::SwitchArg version("", "version", "Print the version, then exit", cmd);
    TCLAP::ValueArg<std::string> output("", "output",
                                        "With --axis: write the result array to this .npy file",
                                        false, "", "file", cmd);
    TCLAP::ValueArg<std::string> shape(
        "", "shape", "With --axis: the random input's shape, e.g. 4096x65536 (not with -l)", false,
        "", "shape", cmd);
    TCLAP::ValueArg<std::string> axis(
        "", "axis",
        "Reduce along these axes (NumPy's axis=; -1 the last; 0,2 several): the result is an "
        "array of the other axes",
        false, "", "axes", cmd);
    TCLAP::ValueArg<std::string> kernel_dir(
        "", "kernels", "Read reduce.cl from this folder instead of the copy built in", false, "",
        "folder", cmd);
    TCLAP::SwitchArg exact(
        "", "exact",
        "Float sums: the exact sum rounded once, the same bits on every device and layout", cmd);
    TCLAP::SwitchArg csv("", "csv", "With --sweep: print CSV instead of a table", cmd);
    TCLAP::SwitchArg json("", "json", "Print one JSON object instead of text", cmd);
    TCLAP::SwitchArg sweep(
        "", "sweep",
        "Benchmark every power of two from 2^10 to --length, and --length (default 2^28)", cmd);
    TCLAP::ValueArg<std::string> chunk(
        "", "chunk", "With --host-input: values per streamed chunk (default: 64 MiB worth)", false,
        "", "count", cmd);
    TCLAP::SwitchArg host_input("", "host-input",
                                "Keep the input in host memory and stream it in chunks", cmd);
    TCLAP::ValueArg<std::string> max_buffer(
        "", "max-buffer",
        "Values per device buffer; longer inputs span several (default: the device's largest)",
        false, "", "count", cmd);
    TCLAP::SwitchArg cold("", "cold", "Measure the first launch: no uncounted warm-up run", cmd);
    TCLAP::ValueArg<std::string> iterations(
        "i", "iterations",
        "Timed runs after one warm-up; reports min and median (default: 1; 10 with --sweep)", false,
        "1", "count", cmd);
    TCLAP::ValueArg<std::string> work_group_size(
        "w", "work-group-size",
        "Work-group size, a power of two (default: the kernel's largest on GPUs, its "
        "preferred multiple on CPUs)",
        false, "", "count", cmd);
    std::vector<std::string> factor_names{"device", "textbook"};
    TCLAP::ValuesConstraint<std::string> factor_constraint(factor_names);
    TCLAP::ValueArg<std::string> factor("f", "factor",
                                        "Per-pass shrink factor: device (tuned) or textbook "
                                        "(2 x work-group size) (default: device)",
                                        false, "device", &factor_constraint, cmd);
    std::vector<std::string> finish_names{"passes", "last-group", "auto"};
    TCLAP::ValuesConstraint<std::string> finish_constraint(finish_names);
    TCLAP::ValueArg<std::string> finish(
        "", "finish",
        "How partial results become one: passes (a launch each), "
        "last-group (one launch) or auto (last-group where allowed) (default: passes)",
        false, "passes", &finish_constraint, cmd);
    TCLAP::SwitchArg allow_unreported(
        "", "allow-unreported",
        "Build the --strategy given even if the device does not report support for it", cmd);
    std::vector<std::string> path_names{"auto", "work-group", "sub-group", "tree"};
    TCLAP::ValuesConstraint<std::string> path_constraint(path_names);
    TCLAP::ValueArg<std::string> path(
        "", "strategy",
        "The reduction path: how work-groups combine values (default: auto, the first the "
        "device reports)",
        false, "auto", &path_constraint, cmd);
    TCLAP::SwitchArg list("", "list", "List every platform and device, then exit", cmd);
    TCLAP::ValueArg<std::string> seed("s", "seed", "Seed of the random input (default: 1)", false,
                                      "1", "number", cmd);
    TCLAP::ValueArg<std::string> input(
        "", "input",
        "Reduce this file's values instead of random ones: a NumPy .npy file, else raw "
        "little-endian values of --data-type",
        false, "", "file", cmd);
    TCLAP::SwitchArg no_check(
        "", "no-check", "Skip the host's reference reduction: the result is reported unchecked",
        cmd);
    TCLAP::SwitchArg quiet("q", "quiet", "Print only the result, of one run without a warm-up",
                           cmd);
    TCLAP::SwitchArg verbose(
        "v", "verbose", "Also print capabilities, build options, the memory needed, the plan", cmd);
    auto type_names = names_of(device_types);
    TCLAP::ValuesConstraint<std::string> type_constraint(type_names);
    TCLAP::ValueArg<std::string> type(
        "t", "type", "Device type (default: gpu, else acc, else cpu; all with --platform)", false,
        "all", &type_constraint, cmd);
    TCLAP::ValueArg<std::string> device(
        "d", "device",
        "Device index within the platform; several (0,1) or all split the work (default: 0)", false,
        "0", "index", cmd);
    TCLAP::ValueArg<std::string> platform(
        "p", "platform", "Platform index (default: the first with a device of --type)", false, "",
        "index", cmd);
    TCLAP::ValueArg<std::string> length(
        "l", "length", "Number of values, or 2^N (default: 2^20; 2^28 with --sweep)", false,
        "1048576", "count", cmd);
    std::vector<std::string> accumulator_names;
    for (const auto& type_info : all_types())
        if (accumulates(type_info.type))
            accumulator_names.push_back(type_info.name);
    TCLAP::ValuesConstraint<std::string> accumulator_constraint(accumulator_names);
    auto data_type_names = names_of(data_types());
    TCLAP::ValuesConstraint<std::string> data_type_constraint(data_type_names);
    TCLAP::ValueArg<std::string> data_type("", "data-type",
                                           "Type of the values (default: int32 for random ones; a "
                                           ".npy file's own; a raw file needs it)",
                                           false, "int32", &data_type_constraint, cmd);
    TCLAP::ValueArg<std::string> map(
        "", "map",
        "OpenCL C over x (the value) and i (its index, ulong) that transforms each value before "
        "it is reduced, e.g. 'x * x' (not with -o any or all)",
        false, "", "expression", cmd);
    TCLAP::ValueArg<std::string> identity(
        "", "identity", "With --reduce: its identity, OpenCL C, e.g. 1 for 'a * b'", false, "",
        "value", cmd);
    TCLAP::ValueArg<std::string> reduce(
        "", "reduce",
        "Your own op instead of -o: OpenCL C over a and b, associative and commutative, e.g. "
        "'a * b'; runs as device code",
        false, "", "expression", cmd);
    TCLAP::ValueArg<std::string> accumulate(
        "", "accumulate",
        "Type to reduce in (NumPy's dtype=): int32, uint32, int64, uint64, float or double "
        "(default: int64 for int8 and int16 sums and products, uint64 for uint8, uint16 and "
        "bool, float for float16 and bfloat16, else the values' type)",
        false, "", &accumulator_constraint, cmd);
    auto op_names = names_of(ops());
    TCLAP::ValuesConstraint<std::string> op_constraint(op_names);
    TCLAP::ValueArg<std::string> op(
        "o", "op",
        "Reduction (default: sum): sum or prod (integers wrap around), min or max (NaN "
        "propagates), nanmin or nanmax (NaN ignored), any or all",
        false, "sum", &op_constraint, cmd);

    try {
        auto arguments = split_arguments(argc, argv);
        refuse_bare_dashes(arguments);
        cmd.parse(arguments);
    } catch (const TCLAP::ArgException& error) {
        const auto id = error.argId();
        usage_error(error.error() + (id == "undefined" ? "" : " (" + id + ")"));
    }

    for (const auto* alone : {&help, &version, &list})
        refuse_beside(cmd, *alone);
    if (help.isSet() || version.isSet()) {
        answer_help_or_version(cmd, help);
        return std::nullopt;
    }
    refuse_conflicts({{&verbose, &quiet},
                      {&json, &csv},
                      {&verbose, &json},
                      {&verbose, &csv},
                      {&quiet, &json},
                      {&quiet, &csv},
                      {&quiet, &sweep},
                      {&quiet, &iterations},
                      {&no_check, &sweep},
                      {&host_input, &sweep},
                      {&host_input, &max_buffer},
                      {&input, &seed},
                      {&reduce, &op},
                      {&exact, &sweep},
                      {&exact, &path},
                      {&exact, &finish},
                      {&exact, &factor},
                      {&exact, &map},
                      {&exact, &reduce},
                      {&exact, &accumulate},
                      {&shape, &length},
                      {&shape, &input},
                      // What reduces along axes: its values on the devices, with
                      // the segmented kernels (docs/axes.md).
                      {&axis, &sweep},
                      {&axis, &max_buffer},
                      {&axis, &kernel_dir}});
    for (const auto* needs_axis : {&shape, &output})
        if (needs_axis->isSet() && !axis.isSet())
            usage_error("--" + needs_axis->getName() + " needs --axis");

    if (reduce.isSet() != identity.isSet())
        usage_error("--reduce and --identity go together");
    for (const auto* expression : {&reduce, &identity, &map})
        if (expression->isSet() && expression->getValue().empty())
            usage_error("--" + expression->getName() + " '' is empty");
    if (kernel_dir.isSet() && kernel_dir.getValue().empty())
        usage_error("--kernels '' names no folder (leave it out to use the default)");
    if (chunk.isSet() && !host_input.isSet())
        usage_error("--chunk needs --host-input");
    if (csv.isSet() && !sweep.isSet())
        usage_error("--csv needs --sweep");
    if (factor.getValue() == "textbook" && finish.getValue() == "last-group")
        usage_error("--factor textbook and --finish last-group cannot be used together: the "
                    "textbook factor runs every pass as a launch of its own");
    if (allow_unreported.isSet() && path.getValue() == "auto")
        usage_error("--allow-unreported needs an explicit --strategy");

    Options options;
    options.mode = list.isSet() ? Mode::list : sweep.isSet() ? Mode::sweep : Mode::reduce;
    options.op = reduce.isSet() ? Op::custom : choose(op.getValue(), ops(), "op");
    options.user = {reduce.getValue(), identity.getValue(), map.getValue()};
    if (map.isSet() && info(options.op).map)
        usage_error("-o " + op.getValue() + " maps each value to x != 0 itself: no --map");
    options.type = choose(data_type.getValue(), data_types(), "data type");
    if (accumulate.isSet() && info(options.op).indexed)
        usage_error("-o " + op.getValue() + " gives the extreme value as it is: no --accumulate");
    if (accumulate.isSet())
        options.accumulate = choose(accumulate.getValue(), data_types(), "accumulator");
    options.type_given = data_type.isSet();
    options.length_given = length.isSet();
    options.length = sweep.isSet() && !length.isSet() ? std::uint64_t{1} << 28
                                                      : parse_count(length.getValue(), "--length");
    if (shape.isSet()) { // the random input's length is its values'
        options.shape = parse_shape(shape.getValue());
        options.length = 1;
        for (const auto extent : options.shape)
            options.length *= extent;
    }
    if (sweep.isSet() && options.length < shortest_sweep)
        usage_error("--sweep measures lengths from 2^10 up to --length, and --length " +
                    length.getValue() + " is shorter");
    if (platform.isSet())
        options.triplet.platform = parse_index(platform.getValue(), "--platform");
    parse_device_list(device.getValue(), options.triplet);
    if (type.isSet())
        options.triplet.type = parse_device_type(type.getValue());
    options.path = choose(path.getValue(), paths, "strategy");
    options.allow_unreported = allow_unreported.isSet();
    options.factor = factor.getValue() == "device" ? Factor::device : Factor::textbook;
    options.finish = choose(finish.getValue(), finishes, "finish");
    options.finish_given = finish.isSet();
    if (work_group_size.isSet()) {
        const auto limit = parse_index(work_group_size.getValue(), "--work-group-size");
        if (limit == 0 || (limit & (limit - 1)) != 0)
            usage_error("--work-group-size " + work_group_size.getValue() +
                        " is not a power of two");
        options.work_group_size = limit;
    }
    if (max_buffer.isSet())
        options.max_buffer = parse_count(max_buffer.getValue(), "--max-buffer");
    options.host_input = host_input.isSet();
    if (chunk.isSet())
        options.chunk = parse_count(chunk.getValue(), "--chunk");
    options.exact = exact.isSet();
    options.seed = parse_unsigned(seed.getValue(), "--seed");
    if (input.isSet())
        options.input = input.getValue();
    else // a file's length is its header's: open_input counts its pieces
        refuse_too_many_pieces(options);
    constexpr std::uint64_t most_iterations = 1000000;
    const auto runs = parse_count(iterations.getValue(), "--iterations");
    if (runs > most_iterations)
        usage_error("--iterations " + iterations.getValue() + " is out of range (at most " +
                    std::to_string(most_iterations) + ")");
    constexpr unsigned sweep_iterations = 10;
    options.iterations =
        sweep.isSet() && !iterations.isSet() ? sweep_iterations : static_cast<unsigned>(runs);
    options.benchmark = iterations.isSet() || sweep.isSet();
    // -q asks for the answer alone: one run, and no warm-up to make its timing typical.
    options.cold = cold.isSet() || quiet.isSet();
    options.check = !no_check.isSet();
    options.format = json.isSet() ? Format::json : csv.isSet() ? Format::csv : Format::text;
    options.verbosity = quiet.isSet()     ? Verbosity::quiet
                        : verbose.isSet() ? Verbosity::verbose
                                          : Verbosity::normal;
    options.kernel_dir = kernel_dir.getValue();
    if (axis.isSet())
        options.axes = parse_axes(axis.getValue());
    if (options.axes.size() > 1 && info(options.op).indexed)
        usage_error("--axis '" + axis.getValue() + "': -o " + op.getValue() +
                    " takes one axis, as NumPy's does");
    if (output.isSet() && output.getValue().empty())
        usage_error("--output '' names no file");
    options.output = output.getValue();
    return options;
}

} // namespace clreduce
