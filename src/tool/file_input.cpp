#include "tool/file_input.hpp"

#include "tool/failure.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <linux/fs.h>
#include <set>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

// Raw files and '=' in a .npy dtype are this host's byte order, read as little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "clreduce reads little-endian values");

namespace clreduce {
namespace {

/// The .npy dtypes clreduce reads, from the type table: "<i4 <u4 ... |b1".
std::string npy_dtypes() {
    std::string codes;
    for (const auto& type : all_types())
        if (type.npy)
            codes += (codes.empty() ? "" : " ") + std::string(type.npy);
    return codes;
}

constexpr std::string_view npy_magic = "\x93NUMPY";

[[noreturn]] void bad_input(const std::string& problem) {
    throw Failure(ExitCode::input_data, problem);
}

/// A recursive-descent reader of the one dict literal a .npy header holds; no general Python
/// parser is needed for three keys whose values are a string, a boolean and a tuple.
class HeaderReader {
public:
    explicit HeaderReader(std::string_view text)
        : text_(text) {}

    NpyHeader read() {
        NpyHeader header;
        std::set<std::string> keys;
        expect('{');
        while (!take('}')) {
            const auto key = quoted();
            if (!keys.insert(key).second)
                fail("'" + key + "' given twice");
            expect(':');
            if (key == "descr")
                header.descr = descr();
            else if (key == "fortran_order")
                header.fortran_order = boolean();
            else if (key == "shape")
                header.shape = tuple();
            else
                fail("unknown key '" + key + "'");
            if (!take(',')) {
                expect('}');
                break;
            }
        }
        skip_space(); // numpy pads the header with spaces and ends it with '\n'
        if (at_ != text_.size())
            fail("text after the dict");
        for (const char* key : {"descr", "fortran_order", "shape"})
            if (keys.count(key) == 0)
                bad_input("malformed .npy header: no '" + std::string(key) + "'");
        return header;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const {
        bad_input("malformed .npy header: " + problem + " at character " + std::to_string(at_) +
                  " of \"" + printable(text_) + "\"");
    }

    /// The header as one short line: its padding dropped, control characters as '?'.
    static std::string printable(std::string_view text) {
        constexpr std::size_t longest = 160;
        const auto end = text.find_last_not_of(" \n") + 1;
        std::string line(text.substr(0, std::min(end, longest)));
        std::replace_if(
            line.begin(), line.end(), [](char c) { return c >= 0 && c < ' '; }, '?');
        return line + (end > longest ? "..." : "");
    }

    void skip_space() {
        while (at_ < text_.size() && std::strchr(" \t\r\n", text_[at_]) != nullptr)
            ++at_;
    }

    /// Skips spaces, then takes `c` if it comes next.
    bool take(char c) {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }

    void expect(char c) {
        if (!take(c))
            fail(std::string("expected '") + c + "'");
    }

    std::string quoted() {
        skip_space();
        const char quote = at_ < text_.size() ? text_[at_] : '\0';
        if (quote != '\'' && quote != '"')
            fail("expected a quoted string");
        const auto end = text_.find(quote, at_ + 1);
        if (end == std::string_view::npos)
            fail("unterminated string");
        std::string text(text_.substr(at_ + 1, end - at_ - 1));
        at_ = end + 1;
        return text;
    }

    std::string descr() {
        if (take('['))
            bad_input("unsupported dtype: a structured array (a list of fields); clreduce reads " +
                      npy_dtypes());
        return quoted();
    }

    bool boolean() {
        skip_space();
        for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}})
            if (text_.substr(at_, std::strlen(word)) == word) {
                at_ += std::strlen(word);
                return value;
            }
        fail("expected True or False");
    }

    std::uint64_t integer() {
        skip_space();
        const auto begin = at_;
        std::uint64_t value = 0;
        constexpr auto most = std::numeric_limits<std::uint64_t>::max();
        for (; at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9'; ++at_) {
            const auto digit = static_cast<std::uint64_t>(text_[at_] - '0');
            if (value > (most - digit) / 10)
                fail("a size past 2^64 - 1");
            value = value * 10 + digit;
        }
        if (at_ == begin)
            fail("expected a non-negative integer");
        take('L'); // Python 2's numpy wrote long integers as 3L
        return value;
    }

    /// "()", "(5,)" or "(3, 4)"; "(5)" too, which numpy never writes.
    std::vector<std::uint64_t> tuple() {
        std::vector<std::uint64_t> sizes;
        expect('(');
        while (!take(')')) {
            sizes.push_back(integer());
            if (!take(',')) {
                expect(')');
                break;
            }
        }
        return sizes;
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

/// Where the values are in a mapped file, and of what type.
struct Layout {
    DataType type;
    std::uint64_t offset; // bytes before the first value
    std::uint64_t length; // values
    Shape shape;          // a raw file's: one axis
};

template <typename Word>
Word little_endian(const unsigned char* bytes) {
    Word word = 0;
    for (std::size_t i = 0; i < sizeof(Word); ++i)
        word |= static_cast<Word>(bytes[i]) << (8 * i);
    return word;
}

/// A .npy file: the magic, the version, the header's length (2 bytes in 1.0, 4 in 2.0 and
/// 3.0), the header, then the values.
Layout npy_layout(const unsigned char* bytes, std::uint64_t size) {
    constexpr std::uint64_t version_end = 8;
    if (size < version_end)
        bad_input("truncated .npy header: the file ends after " + std::to_string(size) +
                  " bytes, within the magic and version");
    const int major = bytes[6];
    const int minor = bytes[7];
    if (major < 1 || major > 3 || minor != 0)
        bad_input("unsupported .npy version " + std::to_string(major) + "." +
                  std::to_string(minor) + " (clreduce reads 1.0, 2.0 and 3.0)");
    const std::uint64_t preamble = version_end + (major == 1 ? 2 : 4);
    if (size < preamble)
        bad_input("truncated .npy header: the file ends after " + std::to_string(size) +
                  " bytes, within the header's length");
    const std::uint64_t header_length = major == 1
                                            ? little_endian<std::uint16_t>(bytes + version_end)
                                            : little_endian<std::uint32_t>(bytes + version_end);
    const auto offset = preamble + header_length;
    if (size < offset)
        bad_input("truncated .npy header: it is " + std::to_string(header_length) +
                  " bytes long, the file ends " + std::to_string(size - preamble) +
                  " bytes into it");
    const auto header = parse_npy_header(
        {reinterpret_cast<const char*>(bytes + preamble), static_cast<std::size_t>(header_length)});
    const auto type = npy_type(header.descr);
    const auto length = values_in(header.shape);
    const auto value_size = info(type).size;
    if (offset % value_size != 0)
        bad_input("the values start at byte " + std::to_string(offset) + ", not a multiple of " +
                  std::to_string(value_size) + " (numpy aligns them to 64)");
    if (length > (size - offset) / value_size)
        bad_input("truncated data: shape " + shape_text(header.shape) + " of " + name_of(type) +
                  " needs " + std::to_string(length) + " values after byte " +
                  std::to_string(offset) + ", the file holds " +
                  std::to_string((size - offset) / value_size));
    return {type, offset, length, {header.shape, header.fortran_order ? Order::fortran : Order::c}};
}

Layout raw_layout(std::optional<DataType> given, std::uint64_t size) {
    if (!given) // raw bytes say nothing of their type, and a guess would reduce them silently
        throw Failure(
            ExitCode::usage,
            "a raw file (without NumPy's magic \\x93NUMPY) needs --data-type (see --help)");
    const auto type = *given;
    const auto value_size = info(type).size;
    if (size % value_size != 0)
        bad_input(std::to_string(size) + " bytes, not a whole number of " +
                  std::to_string(value_size) + "-byte " + name_of(type) +
                  " values (a raw file of --data-type; .npy files start with \\x93NUMPY)");
    return {type, 0, size / value_size, {{size / value_size}, Order::c}};
}

bool ends_with(const std::string& text, std::string_view suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Layout layout_of(const std::string& path, const unsigned char* bytes, std::uint64_t size,
                 std::optional<DataType> raw_type) {
    const bool has_magic =
        size >= npy_magic.size() && std::memcmp(bytes, npy_magic.data(), npy_magic.size()) == 0;
    if (has_magic)
        return npy_layout(bytes, size);
    // A raw file may be called anything, but one named .npy is surely meant to be one.
    if (ends_with(path, ".npy"))
        bad_input(size == 0 ? "empty, without even a .npy header"
                            : "named .npy but without NumPy's magic \\x93NUMPY at its start");
    return raw_layout(raw_type, size);
}

/// What a path that is neither a regular file nor a block device is, for the error.
std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    return "of an unknown kind";
}

/// Only a regular file or a block device holds a fixed array to map. Checked on the path
/// before it is opened, as opening a FIFO waits for a writer, and again on what was opened.
void refuse_unmappable(const struct stat& status) {
    if (!S_ISREG(status.st_mode) && !S_ISBLK(status.st_mode))
        bad_input(kind_of(status.st_mode) + ", not a regular file or a block device");
}

/// The bytes a regular file or a block device holds: a block device's st_size is 0.
std::uint64_t size_of(int fd, const struct stat& status) {
    if (!S_ISBLK(status.st_mode))
        return static_cast<std::uint64_t>(status.st_size);
    std::uint64_t bytes = 0;
    if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
        bad_input(std::string("cannot read the block device's size: ") + std::strerror(errno));
    return bytes;
}

/// Closes a file descriptor when it goes out of scope; the mapping outlives it.
struct Descriptor {
    int fd;
    ~Descriptor() { close(fd); }
};

} // namespace

NpyHeader parse_npy_header(std::string_view text) {
    return HeaderReader(text).read();
}

DataType npy_type(const std::string& descr) {
    // One-byte types have no order ('|'); the others are read little-endian ('<', or '=' on
    // this little-endian host). A type without a NumPy dtype (bfloat16) comes in raw files.
    const char order = descr.empty() ? '\0' : descr.front();
    const auto code = descr.empty() ? descr : descr.substr(1);
    for (const auto& type : all_types()) {
        if (!type.npy || code != std::string(type.npy).substr(1))
            continue;
        if (order == '<' || order == '=' || order == '|')
            return type.type;
        if (order == '>')
            bad_input("big-endian dtype '" + descr +
                      "' is not supported; save the array little-endian, e.g. with numpy's "
                      "a.astype('" +
                      type.npy + "')");
    }
    bad_input("unsupported dtype '" + descr + "'; clreduce reads " + npy_dtypes());
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

std::uint64_t values_in(const std::vector<std::uint64_t>& shape) {
    std::uint64_t count = 1;
    for (const auto size : shape) {
        if (size != 0 && count > std::numeric_limits<std::uint64_t>::max() / size)
            bad_input("shape " + shape_text(shape) + " holds more than 2^64 - 1 values");
        count *= size;
    }
    return count;
}

void InputFile::Unmap::operator()(void* address) const {
    munmap(address, bytes);
}

InputFile::InputFile(const std::string& path, std::optional<DataType> raw_type)
    : mapping_(nullptr, Unmap{0}) {
    try {
        struct stat status {};
        if (stat(path.c_str(), &status) != 0)
            bad_input(std::string("cannot open it: ") + std::strerror(errno));
        refuse_unmappable(status);
        const Descriptor file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
        if (file.fd < 0)
            bad_input(std::string("cannot open it: ") + std::strerror(errno));
        if (fstat(file.fd, &status) != 0)
            bad_input(std::string("cannot examine it: ") + std::strerror(errno));
        refuse_unmappable(status);
        const auto size = size_of(file.fd, status);
        // An empty file maps nothing; its values, none, start at a byte of their own, so
        // that views of them stay pointer arithmetic on an object.
        static constexpr unsigned char no_values = 0;
        const unsigned char* bytes = &no_values;
        if (size != 0) {
            void* address = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
            if (address == MAP_FAILED)
                bad_input(std::string("cannot map it: ") + std::strerror(errno));
            mapping_ = {address, Unmap{size}};
            bytes = static_cast<const unsigned char*>(address);
        }
        const auto layout = layout_of(path, bytes, size, raw_type);
        values_ = {layout.type, bytes + layout.offset, layout.length, Origin::given};
        shape_ = layout.shape;
    } catch (const Failure& failure) { // a usage error stays one, with the file named
        throw Failure(failure.code(), "--input '" + path + "': " + failure.what());
    }
}

std::optional<InputFile> open_input(Options& options) {
    if (!options.input)
        return std::nullopt;
    const auto& path = *options.input;
    std::optional<InputFile> file(std::in_place, path,
                                  options.type_given ? std::optional(options.type) : std::nullopt);
    const auto values = file->values();
    if (values.length == 0 && !empty_gives_identity(options.op)) // NumPy's words for it
        throw Failure(ExitCode::input_data,
                      "--input '" + path + "' holds no values: " +
                          (info(options.op).indexed
                               ? "attempt to get " + name_of(options.op) + " of an empty sequence"
                               : "zero-size array to reduction operation " + name_of(options.op) +
                                     " which has no identity"));
    if (options.type_given && values.type != options.type)
        throw Failure(ExitCode::usage,
                      "--data-type " + name_of(options.type) + " disagrees with --input '" + path +
                          "', whose .npy header says " + name_of(values.type) + " (see --help)");
    options.type = values.type;
    if (options.length_given && options.length > values.length)
        throw Failure(ExitCode::usage, "--length " + std::to_string(options.length) +
                                           " is longer than --input '" + path + "', which holds " +
                                           std::to_string(values.length) + " values (see --help)");
    if (!options.length_given)
        options.length = values.length;
    refuse_too_many_pieces(options);
    return file;
}

} // namespace clreduce
