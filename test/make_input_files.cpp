// Writes the --input files that the CLI tests reduce into the folder given as the argument:
// .npy files of every dtype, header version, order and shape, raw files, and broken ones.
// No numpy is needed: a .npy file is the magic, a version, a header's length, a Python dict
// literal padded with spaces, then the values' bytes (numpy's lib/format.py).
//
// The good files hold 1, 2, ..., 1000 (times 2^32 for 8-byte integers), whose sum is 500500
// (2149631131648000) in any order, so that the tests can check the exact result; the one-byte
// and bfloat16 files hold 1, 2, ..., 100 ten times (50500), which they hold exactly, and the
// bool file alternates false and true (500).

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

constexpr std::uint64_t values_in_good_files = 1000;

template <typename T>
std::string bytes_of(const std::vector<T>& values) {
    std::string bytes(values.size() * sizeof(T), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

/// 1, 2, ..., 100, 1, 2, ... (count values), each as T made by `make`.
template <typename T, typename Make>
std::string hundreds(std::uint64_t count, Make make) {
    std::vector<T> values;
    for (std::uint64_t i = 0; i < count; ++i)
        values.push_back(make(static_cast<int>(i % 100 + 1)));
    return bytes_of(values);
}

/// The bits of a float's upper half, as bfloat16 holds it (exact for small integers).
std::uint16_t bfloat16_bits(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return static_cast<std::uint16_t>(bits >> 16);
}

/// IEEE half-precision bits of a positive integer below 2048 (exact).
std::uint16_t half_bits(std::uint64_t value) {
    int exponent = 0;
    while ((value >> exponent) > 1)
        ++exponent;
    const auto fraction = (value << (10 - exponent)) & 0x3ff;
    return static_cast<std::uint16_t>(((exponent + 15) << 10) | fraction);
}

/// 1, 2, ..., count, each times `scale`.
template <typename T>
std::string counting(std::uint64_t count, T scale = 1) {
    std::vector<T> values;
    for (std::uint64_t i = 1; i <= count; ++i)
        values.push_back(static_cast<T>(i) * scale);
    return bytes_of(values);
}

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
           ", 'shape': " + shape + ", }";
}

/// A .npy file of version major.0 whose values start at a multiple of `align` bytes (numpy
/// writes 64; version 1.0 once asked only for 16).
std::string npy(const std::string& header, const std::string& data, int major = 1,
                std::size_t align = 64) {
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    const std::size_t preamble = 8 + length_bytes;
    std::string padded = header;
    while ((preamble + padded.size() + 1) % align != 0)
        padded += ' ';
    padded += '\n';
    std::string file = "\x93NUMPY";
    file += static_cast<char>(major);
    file += '\0';
    for (std::size_t i = 0; i < length_bytes; ++i)
        file += static_cast<char>((padded.size() >> (8 * i)) & 0xff);
    return file + padded + data;
}

bool write(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

} // namespace

int main(int argc, char* argv[]) {
    if (argc != 2) {
        std::cerr << "usage: make_input_files FOLDER\n";
        return 2;
    }
    const std::string folder = argv[1];
    mkdir(folder.c_str(), 0755);
    const auto n = values_in_good_files;
    const auto ints = counting<std::int32_t>(n);
    const auto longs = counting<std::int64_t>(n, std::int64_t{1} << 32);
    const std::vector<std::pair<std::string, std::string>> files = {
        // Every dtype; versions 1.0, 2.0 and 3.0; '=' and '|' byte orders; C and Fortran
        // order; one, two, three and no dimensions.
        {"int32.npy", npy(dict("<i4", "(1000,)"), ints)},
        {"uint32.npy", npy(dict("=u4", "(10, 100)"), counting<std::uint32_t>(n), 2)},
        {"int64.npy", npy(dict("<i8", "(1000,)"), longs, 3)},
        {"uint64.npy", npy(dict("|u8", "(2, 500)"), counting<std::uint64_t>(n, 1ull << 32))},
        {"float.npy", npy(dict("<f4", "(1000,)"), counting<float>(n))},
        {"double-fortran.npy", npy(dict("<f8", "(25, 40)", true), counting<double>(n))},
        {"float-fortran-3d.npy", npy(dict("<f4", "(5, 8, 25)", true), counting<float>(n))},
        {"scalar.npy", npy(dict("<i8", "()"), bytes_of(std::vector<std::int64_t>{42}))},
        // Its values start at byte 80, where a device that wants buffers aligned to more
        // than 16 bytes cannot read them in place.
        {"aligned-16.npy", npy(dict("<i4", "(1000,)"), ints, 1, 16)},
        // The narrow dtypes, generated here as numpy would write them.
        {"int8.npy",
         npy(dict("|i1", "(1000,)"), hundreds<std::int8_t>(n, [](int i) { return i; }))},
        {"uint8.npy",
         npy(dict("|u1", "(1000,)"), hundreds<std::uint8_t>(n, [](int i) { return i; }))},
        {"int16.npy", npy(dict("<i2", "(1000,)"), counting<std::int16_t>(n))},
        {"uint16.npy", npy(dict("=u2", "(1000,)"), counting<std::uint16_t>(n))},
        {"float16.npy", npy(dict("<f2", "(1000,)"),
                            [&] {
                                std::vector<std::uint16_t> halves;
                                for (std::uint64_t i = 1; i <= n; ++i)
                                    halves.push_back(half_bits(i));
                                return bytes_of(halves);
                            }())},
        {"bool.npy",
         npy(dict("|b1", "(1000,)"), hundreds<std::uint8_t>(n, [](int i) { return i % 2 == 0; }))},
        {"bfloat16.raw",
         hundreds<std::uint16_t>(n, [](int i) { return bfloat16_bits(static_cast<float>(i)); })},
        {"int32.raw", ints},
        {"double.raw", counting<double>(n)},
        // No values: a sum of them is 0, a min or max is refused.
        {"no-values.npy", npy(dict("<i4", "(0, 3)"), "")},
        {"empty.raw", ""},
        // Broken ones.
        {"empty.npy", ""},
        {"magic-only.npy", "\x93NUMPY\x01"},
        {"truncated-header.npy", npy(dict("<i4", "(1000,)"), ints).substr(0, 40)},
        {"truncated-data.npy", npy(dict("<i4", "(1000,)"), ints.substr(0, ints.size() - 1))},
        {"wrong-magic.npy", "\x93NUMPX" + npy(dict("<i4", "(1000,)"), ints).substr(6)},
        {"version-4.npy", npy(dict("<i4", "(1000,)"), ints, 4)},
        {"object.npy", npy(dict("|O", "(3,)"), std::string(24, '\0'))},
        {"complex.npy", npy(dict("<c8", "(1000,)"), ints + ints)},
        {"big-endian.npy", npy(dict(">i4", "(1000,)"), ints)},
        {"malformed.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': [1000], }", ints)},
        {"odd-size.raw", ints + "x"},
    };
    for (const auto& [name, bytes] : files)
        if (!write(folder + "/" + name, bytes)) {
            std::cerr << "make_input_files: cannot write " << folder << "/" << name << '\n';
            return 1;
        }
    // Unreadable for anyone but root (removed first: a second run could not write it), a
    // folder where a file should be, and a FIFO, whose opening would wait for a writer.
    const auto unreadable = folder + "/unreadable.npy";
    std::remove(unreadable.c_str());
    if (!write(unreadable, npy(dict("<i4", "(1000,)"), ints)) || chmod(unreadable.c_str(), 0) != 0)
        return 1;
    mkdir((folder + "/folder.npy").c_str(), 0755);
    const auto fifo = folder + "/fifo.npy";
    if (mkfifo(fifo.c_str(), 0644) != 0 && errno != EEXIST)
        return 1;
    return 0;
}
