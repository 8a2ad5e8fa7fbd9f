// Launch files (app/launch_file.h), .npy files (app/npy.h) and the `scgpu run` exit codes
// for bad launch files. Everything but the LaunchFileRun tests works without a device: parsing is
// checked on files written to a temporary directory.
#include <gtest/gtest.h>

#include "testbench/test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "app/cli.h"
#include "app/launch_file.h"
#include "app/npy.h"
#include "tlm/gpu_config.h"

namespace fs = std::filesystem;
using namespace scgpu;
using namespace scgpu::cli;

namespace {

// A hand-written kernel: data[i] += 1 for i < n, one thread per element.
constexpr const char* kAddOnePtx = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(
	.param .u64 add_one_param_0,
	.param .u32 add_one_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<7>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [add_one_param_0];
	ld.param.u32 	%r2, [add_one_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.u32 	%p1, %r1, %r2;
	@%p1 bra 	$L__done;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.u32 	%r6, [%rd4];
	add.s32 	%r6, %r6, 1;
	st.global.u32 	[%rd4], %r6;
$L__done:
	ret;
}
)";

class LaunchFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           fmt("scgpu_launch_", info->test_suite_name(), "_", info->name(), "_", std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write("add_one.ptx", kAddOnePtx);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  template <typename... T> static std::string fmt(const T&... parts) {
    std::string out;
    ((out += parts), ...);
    return out;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream f(path(name), std::ios::binary);
    f << text;
    return path(name);
  }
  template <typename T> std::string writeRaw(const std::string& name, const std::vector<T>& values) const {
    std::ofstream f(path(name), std::ios::binary);
    f.write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size() * sizeof(T)));
    return path(name);
  }
  // Parses `yaml` as <dir>/t.yaml and returns the error message ("" when it parses).
  std::string parseError(const std::string& yaml) const {
    try {
      parseLaunchFile(write("t.yaml", yaml));
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

// The header lines of a valid file, before `buffers:`.
constexpr const char* kHead = "ptx: add_one.ptx\nkernel: add_one\ngrid: 1\nblock: 1\n";

// --------------------------------------------------------------------------------------------
// Valid files

TEST_F(LaunchFileTest, ParsesCompleteFile) {
  writeRaw<float>("x.bin", {1.f, 2.f, 3.f, 4.f});
  writeRaw<float>("expected.bin", {0.f, 0.f, 0.f, 0.f});
  const std::string yaml = R"(# every feature once
ptx: add_one.ptx
kernel: add_one
grid: [256, 2, 1]
block: [128]
dynamic_shared_bytes: 1024
buffers:
  a: {type: f32, count: 65536, init: {random: {seed: 7, min: -1, max: 1}}}
  b: {type: u8, count: 300, init: iota}
  c: {type: s16, count: 3, init: {fill: -3}}
  d: {type: f16, init: {values: [1, 0.5, -2, .inf]}}
  e: {type: f32, init: {file: x.bin}, output: e.npy, expect: expected.bin, tolerance: {rel: 1e-5, abs: 1e-6}}
  f: {type: u64, count: 2}
args: [a, b, {scalar: {type: f32, value: 2.0}}, {scalar: {type: s64, value: -5}}, e, {scalar: {type: f16, value: 1.5}}]
)";
  const LaunchSpec s = parseLaunchFile(write("full.yaml", yaml));
  EXPECT_EQ(s.ptx, path("add_one.ptx"));
  EXPECT_EQ(s.kernel, "add_one");
  EXPECT_EQ(s.grid.x, 256u);
  EXPECT_EQ(s.grid.y, 2u);
  EXPECT_EQ(s.grid.z, 1u);
  EXPECT_EQ(s.block.x, 128u);
  EXPECT_EQ(s.block.y, 1u);
  EXPECT_EQ(s.dynamic_shared_bytes, 1024u);
  EXPECT_EQ(s.kernel_loc.line, 3);
  EXPECT_EQ(s.kernel_loc.col, 9);

  ASSERT_EQ(s.buffers.size(), 6u);
  EXPECT_EQ(s.buffers[0].name, "a");
  EXPECT_EQ(s.buffers[0].type, ElemType::F32);
  EXPECT_EQ(s.buffers[0].count, 65536u);
  EXPECT_EQ(s.buffers[0].init.kind, InitSpec::Kind::Random);
  EXPECT_EQ(s.buffers[0].init.seed, 7u);
  EXPECT_EQ(s.buffers[0].init.fmin, -1.0);
  EXPECT_EQ(s.buffers[0].init.fmax, 1.0);
  EXPECT_EQ(s.buffers[1].init.kind, InitSpec::Kind::Iota);
  EXPECT_EQ(s.buffers[2].init.kind, InitSpec::Kind::Fill);
  EXPECT_EQ(s.buffers[2].init.bytes, (std::vector<std::uint8_t>{0xfd, 0xff}));
  EXPECT_EQ(s.buffers[3].count, 4u);  // implied by values
  EXPECT_EQ(s.buffers[3].init.bytes, (std::vector<std::uint8_t>{0x00, 0x3c, 0x00, 0x38, 0x00, 0xc0, 0x00, 0x7c}));
  EXPECT_EQ(s.buffers[4].count, 4u);  // implied by the file
  EXPECT_EQ(s.buffers[4].init.kind, InitSpec::Kind::File);
  EXPECT_EQ(s.buffers[4].output, path("e.npy"));
  EXPECT_EQ(s.buffers[4].expect, path("expected.bin"));
  ASSERT_TRUE(s.buffers[4].tolerance.has_value());
  EXPECT_EQ(s.buffers[4].tolerance->rel, 1e-5);
  EXPECT_EQ(s.buffers[4].tolerance->abs, 1e-6);
  EXPECT_EQ(s.buffers[5].init.kind, InitSpec::Kind::Zeros);

  ASSERT_EQ(s.args.size(), 6u);
  EXPECT_EQ(s.args[0].kind, ArgSpec::Kind::Buffer);
  EXPECT_EQ(s.args[0].buffer, 0u);
  EXPECT_EQ(s.args[1].buffer, 1u);
  EXPECT_EQ(s.args[2].kind, ArgSpec::Kind::Scalar);
  EXPECT_EQ(s.args[2].type, ElemType::F32);
  EXPECT_EQ(s.args[2].bytes, (std::vector<std::uint8_t>{0, 0, 0, 0x40}));
  EXPECT_EQ(s.args[3].bytes, (std::vector<std::uint8_t>{0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(s.args[4].buffer, 4u);
  EXPECT_EQ(s.args[5].bytes, (std::vector<std::uint8_t>{0x00, 0x3e}));
}

TEST_F(LaunchFileTest, InitialContents) {
  writeRaw<std::int32_t>("v.bin", {5, -6, 7});
  const LaunchSpec s = parseLaunchFile(write("t.yaml", std::string(kHead) + R"(buffers:
  iota8: {type: u8, count: 258, init: iota}
  fill: {type: f64, count: 3, init: {fill: 0.25}}
  file: {type: s32, init: {file: v.bin}}
  zero: {type: u16, count: 5}
  hex: {type: u32, init: {values: [0xff, 0x10, 4294967295]}}
args: []
)"));
  auto iota = initialContents(s.buffers[0]);
  ASSERT_EQ(iota.size(), 258u);
  EXPECT_EQ(iota[255], 255);
  EXPECT_EQ(iota[256], 0);  // integer iota wraps at the type's width
  EXPECT_EQ(iota[257], 1);
  auto fill = initialContents(s.buffers[1]);
  double d[3];
  std::memcpy(d, fill.data(), sizeof d);
  EXPECT_EQ(d[2], 0.25);
  auto file = initialContents(s.buffers[2]);
  std::int32_t v[3];
  std::memcpy(v, file.data(), sizeof v);
  EXPECT_EQ(v[1], -6);
  EXPECT_EQ(initialContents(s.buffers[3]), std::vector<std::uint8_t>(10, 0));
  auto hex = initialContents(s.buffers[4]);
  std::uint32_t h[3];
  std::memcpy(h, hex.data(), sizeof h);
  EXPECT_EQ(h[0], 0xffu);
  EXPECT_EQ(h[1], 0x10u);
  EXPECT_EQ(h[2], 0xffffffffu);
}

TEST_F(LaunchFileTest, RandomInitIsTheDocumentedAlgorithm) {
  const LaunchSpec s = parseLaunchFile(write("t.yaml", std::string(kHead) + R"(buffers:
  i: {type: s16, count: 1000, init: {random: {seed: 42, min: -3, max: 9}}}
  f: {type: f32, count: 1000, init: {random: {seed: 42, min: -2, max: 6}}}
  full: {type: u64, count: 4, init: {random: {seed: 5}}}
  other: {type: s16, count: 1000, init: {random: {seed: 43, min: -3, max: 9}}}
args: []
)"));
  const auto ints = initialContents(s.buffers[0]);
  const auto floats = initialContents(s.buffers[1]);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = rng();
    std::int16_t got;
    std::memcpy(&got, &ints[2 * i], 2);
    ASSERT_EQ(got, std::int16_t(-3 + std::int64_t(x % 13))) << i;
    float g;
    std::memcpy(&g, &floats[4 * i], 4);
    const double u = double(x >> 11) * 0x1.0p-53;
    ASSERT_EQ(g, float(-2.0 * (1 - u) + 6.0 * u)) << i;
    ASSERT_GE(g, -2.0f);
    ASSERT_LE(g, 6.0f);
  }
  // The default integer range is the whole type: the raw generator output.
  const auto full = initialContents(s.buffers[2]);
  std::mt19937_64 rng5(5);
  std::uint64_t first;
  std::memcpy(&first, full.data(), 8);
  EXPECT_EQ(first, rng5());
  // Deterministic, and the seed matters.
  EXPECT_EQ(initialContents(s.buffers[0]), ints);
  EXPECT_NE(initialContents(s.buffers[3]), ints);
}

TEST_F(LaunchFileTest, NpyInitAndExpect) {
  std::vector<std::uint16_t> values = {1, 2, 3, 65535};
  writeNpy(path("in.npy"), "<u2", values.size(), values.data(), values.size() * 2);
  writeNpy(path("want.npy"), "<u2", values.size(), values.data(), values.size() * 2);
  const LaunchSpec s = parseLaunchFile(write("t.yaml", std::string(kHead) + R"(buffers:
  x: {type: u16, init: {file: in.npy}, expect: want.npy}
args: [x]
)"));
  ASSERT_EQ(s.buffers.size(), 1u);
  EXPECT_EQ(s.buffers[0].count, 4u);
  EXPECT_TRUE(s.buffers[0].init.npy);
  EXPECT_TRUE(s.buffers[0].expect_npy);
  EXPECT_EQ(s.buffers[0].init.data_offset, 128u);  // 10 + 58-byte dict + newline, padded to 64
  const auto data = initialContents(s.buffers[0]);
  ASSERT_EQ(data.size(), 8u);
  EXPECT_EQ(std::memcmp(data.data(), values.data(), 8), 0);
}

TEST(HalfConversion, RoundsToNearestEven) {
  EXPECT_EQ(doubleToHalf(0.0), 0x0000);
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(doubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(doubleToHalf(0.1), 0x2e66);
  EXPECT_EQ(doubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(doubleToHalf(65519.99), 0x7bff);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7c00);  // the tie rounds to even: infinity
  EXPECT_EQ(doubleToHalf(1e300), 0x7c00);
  EXPECT_EQ(doubleToHalf(-HUGE_VAL), 0xfc00);
  EXPECT_EQ(doubleToHalf(std::nan("")) & 0x7e00, 0x7e00);
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(1, -11)), 0x3c00);      // tie, even below
  EXPECT_EQ(doubleToHalf(1.0 + 3 * std::ldexp(1, -11)), 0x3c02);  // tie, even above
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(1, -11) + std::ldexp(1, -40)), 0x3c01);  // just above the tie
  EXPECT_EQ(doubleToHalf(std::ldexp(1, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(doubleToHalf(std::ldexp(1, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(doubleToHalf(std::ldexp(1, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(doubleToHalf(3 * std::ldexp(1, -26)), 0x0001);
  EXPECT_EQ(doubleToHalf(3 * std::ldexp(1, -25)), 0x0002);  // 1.5 units: tie, even above
  EXPECT_EQ(doubleToHalf(std::ldexp(1023, -24) + std::ldexp(1, -25)), 0x0400);  // subnormal rounds up to normal
  EXPECT_EQ(doubleToHalf(2047.5), doubleToHalf(2048.0));  // significand overflow into the next binade
  EXPECT_EQ(doubleToHalf(1e-300), 0x0000);
  // Every finite half converts to a double and back to itself.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN
    ASSERT_EQ(doubleToHalf(halfToDouble(std::uint16_t(h))), h) << std::hex << h;
  }
}

// --------------------------------------------------------------------------------------------
// Errors: each with its exact position

struct ErrorCase {
  const char* name;
  std::string yaml;
  const char* where;    // "line:col"
  const char* message;  // a part of the message
};

TEST_F(LaunchFileTest, ErrorsNameLineAndColumn) {
  writeRaw<std::uint32_t>("three.bin", {1, 2, 3});
  writeRaw<std::uint8_t>("odd.bin", {1, 2, 3});
  std::vector<float> f4 = {1, 2, 3, 4};
  writeNpy(path("f4.npy"), "<f4", 4, f4.data(), 16);
  write("bad.npy", "not an npy file at all");
  const std::string head = kHead;
  const std::vector<ErrorCase> cases = {
      {"missing ptx", "kernel: add_one\ngrid: 1\nblock: 1\nargs: []\n", "1:1", "missing key 'ptx' in the launch file"},
      {"missing args", head, "1:1", "missing key 'args'"},
      {"unknown top-level key", head + "args: []\nthreads: 5\n", "6:1", "unknown key 'threads' in the launch file"},
      {"ptx not found", "ptx: nothere.ptx\nkernel: k\ngrid: 1\nblock: 1\nargs: []\n", "1:6",
       "PTX file 'nothere.ptx' not found"},
      {"kernel not a string", "ptx: add_one.ptx\nkernel: {a: 1}\ngrid: 1\nblock: 1\nargs: []\n", "2:9",
       "'kernel' expects a string, found a mapping"},
      {"grid zero", "ptx: add_one.ptx\nkernel: k\ngrid: [4, 0]\nblock: 1\nargs: []\n", "3:11", "'grid' must be at least 1"},
      {"grid too many dims", "ptx: add_one.ptx\nkernel: k\ngrid: [1, 1, 1, 1]\nblock: 1\nargs: []\n", "3:7",
       "list of 1 to 3"},
      {"block not a number", "ptx: add_one.ptx\nkernel: k\ngrid: 1\nblock: lots\nargs: []\n", "4:8",
       "'block' expects an integer, found 'lots'"},
      {"block empty", "ptx: add_one.ptx\nkernel: k\ngrid: 1\nblock:\nargs: []\n", "4:1", "found nothing"},
      {"grid too large", "ptx: add_one.ptx\nkernel: k\ngrid: 4294967296\nblock: 1\nargs: []\n", "3:7",
       "'4294967296' is out of range for u32"},
      {"negative shared", head + "dynamic_shared_bytes: -4\nargs: []\n", "5:23", "out of range for u32"},
      {"args not a list", head + "args: x\n", "5:7", "'args' must be a list"},
      {"unknown buffer in args", head + "buffers:\n  x: {type: u32, count: 4}\nargs: [x, y]\n", "7:11",
       "unknown buffer 'y' in args (buffers: x)"},
      {"number as arg", head + "args: [3]\n", "5:8", "a scalar argument is written"},
      {"buffers not a map", head + "buffers: [x]\nargs: []\n", "5:10", "'buffers' must be a mapping"},
      {"unknown element type", head + "buffers:\n  x: {type: f99, count: 4}\nargs: [x]\n", "6:13",
       "unknown element type 'f99'"},
      {"missing type", head + "buffers:\n  x:\n    count: 4\nargs: [x]\n", "7:5", "missing key 'type' in buffer 'x'"},
      {"missing count", head + "buffers:\n  x: {type: u32, init: zeros}\nargs: [x]\n", "6:6",
       "missing key 'count' in buffer 'x'"},
      {"unknown buffer key", head + "buffers:\n  x: {type: u32, count: 4, size: 9}\nargs: [x]\n", "6:28",
       "unknown key 'size' in buffer 'x'"},
      {"duplicate buffer", head + "buffers:\n  x: {type: u32, count: 1}\n  x: {type: u32, count: 1}\nargs: [x]\n",
       "7:3", "duplicate key 'x' in buffers"},
      {"count zero", head + "buffers:\n  x: {type: u32, count: 0}\nargs: [x]\n", "6:25", "'count' must be at least 1"},
      {"count float", head + "buffers:\n  x: {type: u32, count: 1.5}\nargs: [x]\n", "6:25",
       "'count' expects an integer, found '1.5'"},
      {"unknown init", head + "buffers:\n  x: {type: u32, count: 4, init: ones}\nargs: [x]\n", "6:34",
       "unknown init 'ones'"},
      {"unknown init form", head + "buffers:\n  x: {type: u32, count: 4, init: {ones: 1}}\nargs: [x]\n", "6:35",
       "unknown key 'ones' in init"},
      {"fill out of range", head + "buffers:\n  x: {type: u8, count: 4, init: {fill: 256}}\nargs: [x]\n", "6:40",
       "'256' is out of range for u8"},
      {"fill negative unsigned", head + "buffers:\n  x: {type: u16, count: 4, init: {fill: -1}}\nargs: [x]\n", "6:41",
       "'-1' is out of range for u16"},
      {"fill s8 below range", head + "buffers:\n  x: {type: s8, count: 4, init: {fill: -129}}\nargs: [x]\n", "6:40",
       "out of range for s8"},
      {"f16 value out of range", head + "buffers:\n  x: {type: f16, count: 1, init: {fill: 70000}}\nargs: [x]\n",
       "6:41", "'70000' is out of range for f16"},
      {"values count mismatch", head + "buffers:\n  x: {type: u32, count: 4, init: {values: [1, 2]}}\nargs: [x]\n",
       "6:43", "'values' lists 2 elements, but buffer 'x' has count 4"},
      {"values not numbers", head + "buffers:\n  x: {type: f32, init: {values: [1, two]}}\nargs: [x]\n", "6:37",
       "'values' expects a number, found 'two'"},
      {"random min > max",
       head + "buffers:\n  x: {type: s32, count: 4, init: {random: {seed: 1, min: 5, max: -5}}}\nargs: [x]\n", "6:43",
       "'random' has min > max"},
      {"random unknown key", head + "buffers:\n  x: {type: f32, count: 4, init: {random: {sed: 1}}}\nargs: [x]\n",
       "6:44", "unknown key 'sed' in random"},
      {"init file not found", head + "buffers:\n  x: {type: u32, init: {file: nothere.bin}}\nargs: [x]\n", "6:31",
       "init file 'nothere.bin' not found"},
      {"init file wrong size", head + "buffers:\n  x: {type: u32, count: 4, init: {file: three.bin}}\nargs: [x]\n",
       "6:41", "'three.bin' holds 3 u32 elements, but buffer 'x' has count 4"},
      {"init file partial element", head + "buffers:\n  x: {type: u16, init: {file: odd.bin}}\nargs: [x]\n", "6:31",
       "'odd.bin' has 3 bytes, not a whole number of u16 elements"},
      {"npy dtype mismatch", head + "buffers:\n  x: {type: s32, init: {file: f4.npy}}\nargs: [x]\n", "6:31",
       "'f4.npy' holds dtype '<f4', but the buffer is s32 ('<i4')"},
      {"npy malformed", head + "buffers:\n  x: {type: u8, init: {file: bad.npy}}\nargs: [x]\n", "6:30",
       "'bad.npy': not a .npy file"},
      {"expect not found", head + "buffers:\n  x: {type: u32, count: 3, expect: nothere.bin}\nargs: [x]\n", "6:36",
       "expected-result file 'nothere.bin' not found"},
      {"expect wrong count", head + "buffers:\n  x: {type: f32, count: 3, expect: f4.npy}\nargs: [x]\n", "6:36",
       "'f4.npy' holds 4 f32 elements, but buffer 'x' has 3"},
      {"output dir missing", head + "buffers:\n  x: {type: u32, count: 3, output: no/such/dir/x.bin}\nargs: [x]\n",
       "6:36", "does not exist"},
      {"tolerance on integers",
       head + "buffers:\n  x: {type: u32, count: 3, expect: three.bin, tolerance: {rel: 1}}\nargs: [x]\n", "6:58",
       "'tolerance' is for f16/f32/f64"},
      {"tolerance without expect", head + "buffers:\n  x: {type: f32, count: 3, tolerance: {rel: 1}}\nargs: [x]\n",
       "6:39", "'tolerance' in buffer 'x' needs 'expect'"},
      {"negative tolerance",
       head + "buffers:\n  x: {type: f32, count: 4, expect: f4.npy, tolerance: {abs: -1}}\nargs: [x]\n", "6:61",
       "'abs' must not be negative"},
      {"scalar without type", head + "args: [{scalar: {value: 3}}]\n", "5:17", "missing key 'type' in scalar"},
      {"scalar unknown type", head + "args: [{scalar: {type: int, value: 3}}]\n", "5:24",
       "unknown element type 'int'"},
      {"scalar bad value", head + "args: [{scalar: {type: u32, value: 1e3}}]\n", "5:36",
       "'value' expects an integer, found '1e3'"},
      {"arg with unknown key", head + "args: [{pointer: x}]\n", "5:9", "unknown key 'pointer' in an argument"},
      {"yaml syntax error", "ptx: add_one.ptx\nkernel: k\ngrid: [1, 2\nblock: 1\nargs: []\n", "4:6",
       "end of sequence flow not found"},
      {"not a mapping", "- ptx\n- kernel\n", "1:1", "a launch file is a mapping"},
      {"empty file", "", "1:1", "a launch file is a mapping"},
  };
  for (const auto& c : cases) {
    const std::string msg = parseError(c.yaml);
    const std::string prefix = path("t.yaml") + ":" + c.where + ": error: ";
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << c.name << "\n  expected prefix: " << prefix << "\n  got: " << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.name << "\n  expected to contain: " << c.message
                                                       << "\n  got: " << msg;
  }
}

TEST_F(LaunchFileTest, MissingLaunchFile) {
  try {
    parseLaunchFile(path("nothere.yaml"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nothere.yaml: error: cannot read launch file: No such file or directory"),
              std::string::npos)
        << e.what();
  }
}

// `scgpu run BAD.yaml` exits 3 and names the position, before any device is built.
TEST_F(LaunchFileTest, CommandLineExitCodeForInputErrors) {
  const std::string file = write("bad.yaml", std::string(kHead) + "args: [nothere]\n");
  std::vector<std::string> argv_s = {"scgpu", "run", file, "--mode", "functional"};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  ::testing::internal::CaptureStderr();
  const int code = scgpu::cli::main(int(argv.size()), argv.data());
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitInputError);
  EXPECT_NE(err.find(file + ":5:8: error: unknown buffer 'nothere'"), std::string::npos) << err;

  // Options for suite workloads don't apply to launch files.
  argv_s = {"scgpu", "run", file, "--mode", "functional", "--scale", "2"};
  argv.clear();
  for (auto& a : argv_s) argv.push_back(a.data());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(scgpu::cli::main(int(argv.size()), argv.data()), kExitInputError);
  ::testing::internal::GetCapturedStderr();
}

// --------------------------------------------------------------------------------------------
// .npy

TEST_F(LaunchFileTest, NpyRoundTripAndHeaderFormat) {
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = float(i) * 0.5f - 3.0f;
  const std::string file = path("a.npy");
  writeNpy(file, "<f4", values.size(), values.data(), values.size() * sizeof(float));

  const std::string bytes = test::readFile(file);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), std::string("\x93NUMPY", 6));
  EXPECT_EQ(bytes[6], '\x01');  // version 1.0
  EXPECT_EQ(bytes[7], '\x00');
  const std::size_t header_len = std::uint8_t(bytes[8]) | (std::size_t(std::uint8_t(bytes[9])) << 8);
  const std::size_t data_offset = 10 + header_len;
  EXPECT_EQ(data_offset % 64, 0u);  // numpy aligns the data to 64 bytes
  const std::string dict = bytes.substr(10, header_len);
  const std::string text = "{'descr': '<f4', 'fortran_order': False, 'shape': (16,), }";
  EXPECT_EQ(dict.substr(0, text.size()), text);
  EXPECT_EQ(dict.back(), '\n');
  EXPECT_EQ(dict.find_first_not_of(' ', text.size()), header_len - 1);  // spaces, then '\n'
  EXPECT_EQ(bytes.size(), data_offset + 64);
  EXPECT_EQ(std::memcmp(bytes.data() + data_offset, values.data(), 64), 0);

  const NpyHeader h = readNpyHeader(file);
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, std::vector<std::uint64_t>{16});
  EXPECT_EQ(h.count(), 16u);
  EXPECT_EQ(h.data_offset, data_offset);
  const auto data = readNpyData(file, h, 4);
  ASSERT_EQ(data.size(), 64u);
  EXPECT_EQ(std::memcmp(data.data(), values.data(), 64), 0);

  // Headers of other shapes, and descrs of every launch-file type.
  EXPECT_NE(npyHeaderV1("|u1", {}).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(npyHeaderV1("<i8", {2, 3}).find("'shape': (2, 3), }"), std::string::npos);
  for (std::uint64_t n : {0ull, 1ull, 9ull, 123456789012ull}) EXPECT_EQ(npyHeaderV1("<f8", {n}).size() % 64, 0u);
  EXPECT_EQ(npyDescr(ElemType::U8), "|u1");
  EXPECT_EQ(npyDescr(ElemType::S8), "|i1");
  EXPECT_EQ(npyDescr(ElemType::F16), "<f2");
  EXPECT_EQ(npyDescr(ElemType::S64), "<i8");
  EXPECT_EQ(npyDescr(ElemType::U32), "<u4");
}

TEST_F(LaunchFileTest, NpyReadsNumpyWrittenHeaders) {
  // As numpy 1.x writes a (2, 3) int16 array, with the older 16-byte alignment and a 'L' suffix
  // tolerated; and a version 2.0 header.
  std::string v1 = std::string("\x93NUMPY\x01\x00", 8);
  std::string dict = "{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 3L), }";
  dict += std::string(16 - (10 + dict.size() + 1) % 16, ' ') + "\n";
  v1 += char(dict.size() & 0xff);
  v1 += char(dict.size() >> 8);
  v1 += dict + std::string(12, '\x01');
  write("v1.npy", v1);
  NpyHeader h = readNpyHeader(path("v1.npy"));
  EXPECT_EQ(h.descr, "<i2");
  EXPECT_EQ(h.count(), 6u);
  EXPECT_EQ(readNpyData(path("v1.npy"), h, 2).size(), 12u);

  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  std::string dict2 = "{\"descr\": \"<f8\", \"fortran_order\": True, \"shape\": (1,)}\n";
  v2 += std::string({char(dict2.size()), 0, 0, 0}) + dict2 + std::string(8, '\0');
  write("v2.npy", v2);
  h = readNpyHeader(path("v2.npy"));
  EXPECT_EQ(h.descr, "<f8");
  EXPECT_TRUE(h.fortran_order);
  EXPECT_EQ(h.count(), 1u);

  write("short.npy", v1.substr(0, v1.size() - 1));
  EXPECT_THROW(readNpyData(path("short.npy"), readNpyHeader(path("short.npy")), 2), NpyError);
  write("magic.npy", "\x93NUMPX\x01\x00\x00\x00");
  EXPECT_THROW(readNpyHeader(path("magic.npy")), NpyError);
  write("bigendian.npy", npyHeaderV1(">f4", {1}) + "abcd");
  EXPECT_THROW(readNpyHeader(path("bigendian.npy")), NpyError);
}

// --------------------------------------------------------------------------------------------
// Fuzz: mutations of a valid file either parse or throw ConfigError with a position.

TEST_F(LaunchFileTest, MutationFuzz) {
  writeRaw<float>("x.bin", {1.f, 2.f, 3.f, 4.f});
  std::vector<std::uint32_t> want = {1, 2, 3};
  writeNpy(path("want.npy"), "<u4", 3, want.data(), 12);
  const std::string base = R"(ptx: add_one.ptx
kernel: add_one
grid: [4, 1, 1]
block: [256]
dynamic_shared_bytes: 0
buffers:
  a: {type: f32, count: 4, init: {random: {seed: 1, min: -1, max: 1}}}
  b: {type: f32, init: {file: x.bin}, expect: x.bin, tolerance: {rel: 1e-5, abs: 1e-6}}
  c: {type: u32, count: 3, init: {values: [1, 2, 3]}, output: out.npy, expect: want.npy}
  d: {type: f16, count: 2, init: {fill: 1.5}}
  e:
    type: s8
    count: 7
    init: iota
args: [a, b, {scalar: {type: f32, value: 2.0}}, c, d, {scalar: {type: u64, value: 0x10}}, e]
)";
  ASSERT_NO_THROW(parseLaunchString(base, path("base.yaml")));

  const std::vector<std::string> tokens = {
      "u32", "f16", "s64", "f99", "-1", "0", "1", "65536", "18446744073709551616", "1e400", "-0x8", ".nan", "~",
      "[]", "{}", "[1, 2]", "{a: 1}", "x.bin", "want.npy", "nothere.bin", "values", "random", "file", "fill",
      "iota", "zeros", "scalar", "type", "count", "init", "output", "expect", "tolerance", "args", "buffers", "&a",
      "*a", "!!str", "'q'", "\"", ":", "- ", "\n", "  ", "#", "?", "|", ">",
  };
  const std::string chars = ":{}[],-#&*!|>'\"\n \t0123456789abcxyz.";
  std::mt19937_64 rng(20240601);
  auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
  const std::regex positioned("^" + std::regex_replace(path("m.yaml"), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                              R"(:\d+:\d+: error: )");

  int parsed = 0, rejected = 0;
  for (int iteration = 0; iteration < 500; ++iteration) {
    std::string text = base;
    const int edits = pick(4) == 0 ? 2 : 1;
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = pick(text.size() + 1);
      switch (pick(6)) {
        case 0: if (at < text.size()) text.erase(at, 1 + pick(4)); break;
        case 1: text.insert(at, 1, chars[pick(chars.size())]); break;
        case 2: if (at < text.size()) text[at] = chars[pick(chars.size())]; break;
        case 3: text.insert(at, tokens[pick(tokens.size())]); break;
        case 4: {  // replace a word with a token
          std::size_t b = text.find_first_of(" [{:,\n", at);
          if (b == std::string::npos) break;
          std::size_t start = text.find_first_not_of(" [{:,\n", b);
          if (start == std::string::npos) break;
          std::size_t end = text.find_first_of(" ]}:,\n", start);
          text.replace(start, (end == std::string::npos ? text.size() : end) - start, tokens[pick(tokens.size())]);
          break;
        }
        default: {  // duplicate or drop a line
          std::size_t ls = text.rfind('\n', at == 0 ? 0 : at - 1);
          ls = ls == std::string::npos ? 0 : ls + 1;
          std::size_t le = text.find('\n', ls);
          le = le == std::string::npos ? text.size() : le + 1;
          if (pick(2)) text.insert(ls, text.substr(ls, le - ls));
          else text.erase(ls, le - ls);
        }
      }
    }
    try {
      parseLaunchString(text, path("m.yaml"));
      ++parsed;
    } catch (const ConfigError& e) {
      ++rejected;
      ASSERT_TRUE(std::regex_search(e.what(), positioned)) << "iteration " << iteration << ": " << e.what()
                                                           << "\n--- input ---\n" << text;
    } catch (const std::exception& e) {
      FAIL() << "iteration " << iteration << ": unexpected " << typeid(e).name() << ": " << e.what()
             << "\n--- input ---\n" << text;
    } catch (...) {
      FAIL() << "iteration " << iteration << ": unexpected non-std exception\n--- input ---\n" << text;
    }
  }
  // Both outcomes occur, or the mutations are too weak (or too strong) to test anything.
  EXPECT_GT(parsed, 10);
  EXPECT_GT(rejected, 100);
}

// --------------------------------------------------------------------------------------------
// End to end on the runtime (needs the functional model).

TEST_F(LaunchFileTest, LaunchFileRunAddOne) {
  const std::uint32_t n = 1000;
  std::vector<std::uint32_t> expected(n);
  for (std::uint32_t i = 0; i < n; ++i) expected[i] = i + 1;
  writeRaw("expected.bin", expected);
  const std::string yaml = std::string(R"(ptx: add_one.ptx
kernel: add_one
grid: 4
block: [256, 1, 1]
buffers:
  data: {type: u32, count: 1000, init: iota, output: out.npy, expect: expected.bin}
  copy: {type: u32, count: 1000, init: iota, expect: expected.bin}
args: [data, {scalar: {type: u32, value: 1000}}]
)");
  const LaunchSpec spec = parseLaunchFile(write("run.yaml", yaml));
  driver::Runtime rt(GpuConfig::loadDefault());
  const LaunchOutcome out = runLaunch(spec, rt);
  ASSERT_EQ(out.error, driver::Error::Success) << driver::errorName(out.error);
  ASSERT_EQ(out.checks.size(), 2u);
  EXPECT_TRUE(out.checks[0].passed) << out.checks[0].message;
  // `copy` is not an argument, so it keeps 0..999 and differs from i+1 everywhere.
  EXPECT_FALSE(out.checks[1].passed);
  EXPECT_EQ(out.checks[1].mismatches, n);
  EXPECT_NE(out.checks[1].message.find("first at index 0: got 0, expected 1"), std::string::npos)
      << out.checks[1].message;
  EXPECT_FALSE(out.passed);

  const NpyHeader h = readNpyHeader(path("out.npy"));
  EXPECT_EQ(h.descr, "<u4");
  ASSERT_EQ(h.count(), n);
  const auto data = readNpyData(path("out.npy"), h, 4);
  EXPECT_EQ(std::memcmp(data.data(), expected.data(), n * 4), 0);

  ASSERT_EQ(rt.launches().size(), 1u);
  EXPECT_EQ(rt.launches()[0].kernel, "add_one");
  EXPECT_EQ(rt.launches()[0].grid.x, 4u);
  EXPECT_EQ(rt.launches()[0].block.x, 256u);
  EXPECT_GT(rt.launches()[0].thread_instructions, 1000u);
}

// warmup + repeat launches run back to back on the same buffers and the same chip: the buffer
// holds the effect of every launch, each launch is a row, and a launch after the first finds its
// data in the L2 (timing mode), so it takes fewer cycles.
TEST_F(LaunchFileTest, WarmupAndRepeatLaunchBackToBackOnWarmCaches) {
  const std::uint32_t n = 16384;  // 64 KiB: fits the tiny preset's L2
  std::vector<std::uint32_t> expected(n, 3);
  writeRaw("expected.bin", expected);
  const LaunchSpec spec = parseLaunchFile(write("run.yaml", fmt(R"(ptx: add_one.ptx
kernel: add_one
grid: 64
block: 256
warmup: 1
repeat: 2
buffers:
  data: {type: u32, count: 16384, expect: expected.bin}
args: [data, {scalar: {type: u32, value: 16384}}]
)")));
  EXPECT_EQ(spec.warmup, 1u);
  EXPECT_EQ(spec.repeat, 2u);
  driver::Runtime rt(GpuConfig::loadDefault(), driver::Mode::Timing);
  const LaunchOutcome out = runLaunch(spec, rt);
  ASSERT_EQ(out.error, driver::Error::Success) << driver::errorName(out.error);
  ASSERT_EQ(out.checks.size(), 1u);
  EXPECT_TRUE(out.checks[0].passed) << out.checks[0].message;  // 0 + 1 + 1 + 1
  ASSERT_EQ(rt.launches().size(), 3u);
  EXPECT_LT(rt.launches()[1].core_cycles, rt.launches()[0].core_cycles);
  EXPECT_EQ(rt.launches()[1].warp_instructions, rt.launches()[0].warp_instructions);

  EXPECT_NE(parseError(std::string(kHead) + "repeat: 0\nargs: []\n").find("t.yaml:5:9: error: 'repeat' must be between 1"),
            std::string::npos);
  EXPECT_NE(parseError(std::string(kHead) + "warmup: 200000\nargs: []\n").find("t.yaml:5:9: error: 'warmup' must be at most"),
            std::string::npos);
}

TEST_F(LaunchFileTest, LaunchFileRunCommandLine) {
  std::vector<std::uint32_t> expected(64, 8);  // fill 7, plus one
  writeRaw("expected.bin", expected);
  const std::string file = write("run.yaml", R"(ptx: add_one.ptx
kernel: add_one
grid: 2
block: 32
buffers:
  data: {type: u32, count: 64, init: {fill: 7}, expect: expected.bin}
args: [data, {scalar: {type: u32, value: 64}}]
)");
  const std::string json = path("stats.json");
  std::vector<std::string> argv_s = {"scgpu", "run", file, "--mode", "functional", "--quiet", "--stats-json", json};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  EXPECT_EQ(scgpu::cli::main(int(argv.size()), argv.data()), kExitOk);
  const std::string report = test::readFile(json);
  EXPECT_NE(report.find("\"passed\": true"), std::string::npos) << report;
  EXPECT_NE(report.find("\"thread_instructions\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"config\""), std::string::npos) << report;

  // A wrong expectation exits 1.
  expected[5] = 0;
  writeRaw("expected.bin", expected);
  argv_s = {"scgpu", "run", file, "--mode", "functional", "--quiet"};
  argv.clear();
  for (auto& a : argv_s) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(scgpu::cli::main(int(argv.size()), argv.data()), kExitCheckFailed);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("first at index 5: got 8, expected 0"), std::string::npos) << out;
}

// Tensor maps as arguments: the suite's TMA transpose kernel over a 40 x 64 float matrix (two
// tensor maps, one with the 128-byte swizzle), its result checked against the transpose made here;
// and the refusals of maps that cuTensorMapEncodeTiled refuses or that overrun their buffer.
TEST_F(LaunchFileTest, TensorMapArgumentsDriveTheCopyEngine) {
  fs::copy_file(std::string(SCGPU_SOURCE_DIR) + "/kernels/ptx/sm_90/tma_transpose.ptx", path("tma.ptx"));
  const std::uint32_t rows = 40, cols = 64;
  std::vector<float> in(rows * cols), want(rows * cols);
  for (std::uint32_t i = 0; i < rows * cols; ++i) in[i] = float(i) * 0.5f - 7.0f;
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) want[c * rows + r] = in[r * cols + c];
  writeRaw("in.bin", in);
  writeRaw("want.bin", want);
  const std::string yaml = R"(ptx: tma.ptx
kernel: tma_transpose
grid: [2, 2]
block: [32, 8]
buffers:
  in: {type: f32, init: {file: in.bin}}
  out: {type: f32, count: 2560, expect: want.bin}
args:
  - {tensor_map: {buffer: in, type: f32, dims: [64, 40], strides_bytes: [256], box: [32, 32], swizzle: 128B}}
  - {tensor_map: {buffer: out, type: f32, dims: [40, 64], strides_bytes: [160], box: [32, 32]}}
)";
  const LaunchSpec spec = parseLaunchFile(write("tma.yaml", yaml));
  ASSERT_EQ(spec.args[0].kind, ArgSpec::Kind::TensorMap);
  EXPECT_EQ(spec.args[0].tensor_map.swizzle, sm::TmaSwizzle::B128);
  driver::Runtime rt(GpuConfig::loadDefault(), driver::Mode::Functional);
  const LaunchOutcome out = runLaunch(spec, rt);
  ASSERT_EQ(out.error, driver::Error::Success) << driver::errorName(out.error);
  ASSERT_EQ(out.checks.size(), 1u);
  EXPECT_TRUE(out.checks[0].passed) << out.checks[0].message;

  const std::string head = "ptx: tma.ptx\nkernel: tma_transpose\ngrid: 1\nblock: 32\nbuffers:\n  in: {type: f32, count: 2560}\nargs:\n";
  EXPECT_NE(parseError(head + "  - {tensor_map: {buffer: in, type: f32, dims: [64, 40], strides_bytes: [100], box: [32, 32]}}\n")
                .find("globalStrides[0]"),
            std::string::npos);
  EXPECT_NE(parseError(head + "  - {tensor_map: {buffer: in, type: f32, dims: [64, 40], strides_bytes: [256], box: [32, 32], "
                              "swizzle: 64B}}\n")
                .find("swizzle allows at most 64"),
            std::string::npos);
  EXPECT_NE(parseError(head + "  - {tensor_map: {buffer: in, type: f32, dims: [64, 41], strides_bytes: [256], box: [32, 32]}}\n")
                .find("spans 10496 bytes, but buffer 'in' has 10240"),
            std::string::npos);
  EXPECT_NE(parseError(head + "  - {tensor_map: {buffer: nope, type: f32, dims: [4], box: [4]}}\n").find("unknown buffer 'nope'"),
            std::string::npos);
  EXPECT_NE(parseError(head + "  - {tensor_map: {buffer: in, type: f32, dims: [4], box: [4], colour: red}}\n").find("colour"),
            std::string::npos);
  // An im2col map: NHWC 8 x 10 x 8 x 4 (2560 floats), the box of a 3 x 3 filter with padding 1.
  const LaunchSpec ic = parseLaunchFile(write(
      "im2col.yaml", head + "  - {tensor_map: {buffer: in, type: f32, dims: [8, 10, 8, 4], strides_bytes: [32, 320, 2560], "
                            "im2col: {lower: [-1, -1], upper: [-1, -2], channels_per_pixel: 8, pixels_per_column: 64}}}\n"));
  ASSERT_EQ(ic.args[0].kind, ArgSpec::Kind::TensorMap);
  const sm::TensorMap& im = ic.args[0].tensor_map;
  EXPECT_TRUE(im.im2col);
  EXPECT_EQ(im.upper_corner[1], -2);
  EXPECT_EQ(im.boxBytes(), 8u * 64u * 4u);
  const std::string icmap = "  - {tensor_map: {buffer: in, type: f32, dims: [8, 10, 8, 4], strides_bytes: [32, 320, 2560], ";
  EXPECT_NE(parseError(head + icmap + "box: [8, 8, 8, 1], im2col: {lower: [0, 0], upper: [0, 0], channels_per_pixel: 8, "
                                      "pixels_per_column: 8}}}\n")
                .find("not both"),
            std::string::npos);
  EXPECT_NE(parseError(head + icmap + "im2col: {lower: [0], upper: [0, 0], channels_per_pixel: 8, pixels_per_column: 8}}}\n")
                .find("a list of 2 integers"),
            std::string::npos);
  EXPECT_NE(parseError(head + icmap + "im2col: {lower: [-129, 0], upper: [0, 0], channels_per_pixel: 8, pixels_per_column: 8}}}\n")
                .find("[-128, 127]"),
            std::string::npos);
  EXPECT_NE(parseError(head + icmap + "im2col: {lower: [0, 0], upper: [0, 0], channels_per_pixel: 3, pixels_per_column: 8}}}\n")
                .find("multiple of 16 bytes"),
            std::string::npos);
}

// Texture and surface arguments: a point-sampled 2D texture over a u16 buffer copied through a
// surface into another buffer; the expected bytes are the texels at the sampled coordinates.
constexpr const char* kTexCopyPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry tex_copy(.param .u64 tex, .param .u64 surf)
{
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .b16 %rs<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [surf];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  cvt.rn.f32.u32 %f1, %r1;
  cvt.rn.f32.u32 %f2, %r2;
  add.f32 %f1, %f1, 0f3F000000;
  add.f32 %f2, %f2, 0f3F000000;
  tex.2d.v4.u32.f32 {%r3, %r4, %r5, %r6}, [%rd1, {%f1, %f2}];
  shl.b32 %r7, %r1, 2;
  cvt.u16.u32 %rs1, %r3;
  cvt.u16.u32 %rs2, %r4;
  sust.b.2d.v2.b16.trap [%rd2, {%r7, %r2}], {%rs1, %rs2};
  ret;
}
)";

TEST_F(LaunchFileTest, TextureAndSurfaceArguments) {
  write("tex_copy.ptx", kTexCopyPtx);
  // 8 x 4 texels of two u16 channels: element i is i (iota), so texel (x, y) is (2k, 2k+1), k = y*8+x.
  std::vector<std::uint16_t> expected(64);
  for (std::uint16_t i = 0; i < 64; ++i) expected[i] = i;
  writeRaw("expected.bin", expected);
  const std::string yaml = R"(ptx: tex_copy.ptx
kernel: tex_copy
grid: 1
block: [8, 4]
buffers:
  src: {type: u16, count: 64, init: iota}
  dst: {type: u16, count: 64, expect: expected.bin}
args:
  - {texture: {buffer: src, channels: 2, width: 8, height: 4, filter: point, address: [clamp, border]}}
  - {surface: {buffer: dst, channels: 2, width: 8, height: 4}}
)";
  const LaunchSpec spec = parseLaunchFile(write("tex.yaml", yaml));
  ASSERT_EQ(spec.args.size(), 2u);
  EXPECT_EQ(spec.args[0].kind, ArgSpec::Kind::Texture);
  EXPECT_EQ(spec.args[0].texture.addr[1], sm::TexAddressMode::Border);
  EXPECT_EQ(spec.args[1].texture.magic, sm::kSurfaceMagic);
  driver::Runtime rt(GpuConfig::loadDefault());
  const LaunchOutcome out = runLaunch(spec, rt);
  ASSERT_EQ(out.error, driver::Error::Success) << driver::errorName(out.error);
  ASSERT_EQ(out.checks.size(), 1u);
  EXPECT_TRUE(out.checks[0].passed) << out.checks[0].message;
}

// Mipmap levels laid out one after the other in the buffer (mip_levels) and cube maps (cube):
// thread i reads level i of `mip` at (0.75, 0.75) and face i % 6 of `cube` along its major axis.
constexpr const char* kMipCubePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry mip_cube(.param .u64 mip, .param .u64 cube, .param .u64 dirs, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [mip];
  ld.param.u64 %rd2, [cube];
  ld.param.u64 %rd3, [dirs];
  ld.param.u64 %rd4, [out];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f6, 0f3F400000;
  tex.level.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f6, %f6}], %f1;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd3, %rd5;
  ld.global.v4.f32 {%f7, %f8, %f9, %f10}, [%rd6];
  tex.cube.v4.f32.f32 {%f11, %f12, %f13, %f14}, [%rd2, {%f7, %f8, %f9, %f9}];
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd7, %rd4, %rd5;
  st.global.v2.f32 [%rd7], {%f2, %f11};
  ret;
}
)";

TEST_F(LaunchFileTest, MipmappedAndCubeMapTextureArguments) {
  write("mip_cube.ptx", kMipCubePtx);
  // mip: 8 x 4 f32, 4 levels: level 0 elements 0..31, level 1 (4 x 2) 32..39, level 2 (2 x 1)
  // 40..41, level 3 42; at (0.75, 0.75) level l reads texel (6, 3) = 30, (3, 1) = 39, (1, 0) = 41, 42.
  // cube: 2 x 2 faces, face f's texel (1, 1) = 4 f + 3 lies straight along its axis.
  const float mip[4] = {30, 39, 41, 42};
  std::vector<float> expected;
  for (int i = 0; i < 4; ++i) expected.insert(expected.end(), {mip[i], float(4 * i + 3)});
  for (int i = 4; i < 6; ++i) expected.insert(expected.end(), {42, float(4 * i + 3)});  // levels past the last: 3
  writeRaw("expected.bin", expected);
  const std::string yaml = R"(ptx: mip_cube.ptx
kernel: mip_cube
grid: 1
block: 6
buffers:
  levels: {type: f32, count: 43, init: iota}
  faces: {type: f32, count: 24, init: iota}
  dirs: {type: f32, init: {values: [1, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0]}}
  out: {type: f32, count: 12, expect: expected.bin}
args:
  - {texture: {buffer: levels, width: 8, height: 4, mip_levels: 4, mipmap_filter: point, normalized_coords: true}}
  - {texture: {buffer: faces, width: 2, height: 2, cube: true}}
  - dirs
  - out
)";
  const LaunchSpec spec = parseLaunchFile(write("mip.yaml", yaml));
  ASSERT_EQ(spec.args.size(), 4u);
  EXPECT_EQ(spec.args[0].texture.levels, 4);
  EXPECT_EQ(spec.args[0].texture.max_lod_clamp, 3.0f);  // the default: every level
  EXPECT_TRUE(spec.args[1].texture.cubemap());
  driver::Runtime rt(GpuConfig::loadDefault());
  const LaunchOutcome out = runLaunch(spec, rt);
  ASSERT_EQ(out.error, driver::Error::Success) << driver::errorName(out.error);
  ASSERT_EQ(out.checks.size(), 1u);
  EXPECT_TRUE(out.checks[0].passed) << out.checks[0].message;
}

TEST_F(LaunchFileTest, TextureArgumentErrorsNameTheirPlace) {
  const std::string head = std::string(kHead) + "buffers:\n  img: {type: u8, count: 64}\n  d: {type: f64, count: 8}\nargs:\n";
  struct Case { const char* arg; const char* message; };
  for (const Case& c : {
           Case{"  - {texture: {buffer: img, width: 8, height: 9}}", "t.yaml:9:15: error: a texture of 8 x 9 x 1 texels of 1 bytes needs 72 bytes; buffer 'img' holds 64"},
           Case{"  - {texture: {buffer: nope, width: 8}}", "unknown buffer 'nope' in texture"},
           Case{"  - {texture: {buffer: d, width: 8}}", "buffer 'd' is f64: a texture takes"},
           Case{"  - {texture: {buffer: img, width: 8, filter: linear}}", "linear filtering needs a float format or normalized-float reads"},
           Case{"  - {texture: {buffer: img, width: 8, address: repeat}}", "'address' is wrap, clamp, mirror or border, found 'repeat'"},
           Case{"  - {texture: {buffer: img, width: 8, channels: 3}}", "'channels' is 1, 2 or 4"},
           Case{"  - {surface: {buffer: img, width: 8, filter: point}}", "unknown key 'filter' in surface"},
           Case{"  - {texture: {buffer: img}}", "missing key 'width' in texture"},
           Case{"  - {texture: {buffer: img, width: 4, height: 4, mip_levels: 4}}", "'mip_levels' is at most 3 for a largest dimension of 4"},
           Case{"  - {texture: {buffer: img, width: 8, height: 8, mip_levels: 2}}", "a texture of 8 x 8 x 1 texels of 1 bytes in 2 mipmap levels needs 80 bytes; buffer 'img' holds 64"},
           Case{"  - {texture: {buffer: img, width: 4, height: 2, cube: true}}", "cube-map faces must be square, found 4 x 2"},
           Case{"  - {texture: {buffer: img, width: 4, cube: true}}", "a cube map has a width and a height"},
           Case{"  - {texture: {buffer: img, width: 4, height: 4, cube: true, layers: 3}}", "a texture of 4 x 4 x 18 texels of 1 bytes needs 288 bytes"},
           Case{"  - {texture: {buffer: img, width: 4, lod_bias: 1}}", "'lod_bias' needs 'mip_levels'"},
           Case{"  - {texture: {buffer: img, width: 4, mip_levels: 2, mipmap_filter: cubic}}", "'mipmap_filter' is point or linear, found 'cubic'"},
           Case{"  - {texture: {buffer: img, width: 4, mip_levels: 2, mipmap_filter: linear}}", "linear mipmap filtering needs a float format"},
       }) {
    const std::string err = parseError(head + c.arg + "\n");
    EXPECT_NE(err.find(c.message), std::string::npos) << c.arg << "\n -> " << err;
  }
}

}  // namespace
