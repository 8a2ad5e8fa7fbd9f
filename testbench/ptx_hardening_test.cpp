// Issue 15 (hardening), the PTX front end and the functional core: no PTX text, launch or kernel
// makes scgpu crash, hang or exhaust the host; each refusal says exactly what and where.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include "base/errors.h"
#include "base/input_limits.h"
#include "driver/module.h"
#include "driver/register_counts.h"
#include "driver/runtime.h"
#include "memsys/backing_store.h"
#include "ptx/decoder.h"
#include "ptx/parser.h"
#include "sm/exec_context.h"
#include "sm/functional_engine.h"
#include "sm/simt.h"
#include "tlm/gpu_config.h"

namespace scgpu {
namespace {

using driver::DevicePtr;
using driver::Dim3;
using driver::Error;
using driver::KernelArgs;
using driver::Runtime;

constexpr const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

std::string ptx(const std::string& body) { return std::string(kHeader) + body; }

// Decodes with every symbol known and every instruction form accepted (operands only matter).
ptx::Program decodeForEstimate(const ptx::Module& m, const std::string& kernel) {
  ptx::DecodeEnv env;
  std::uint64_t next = 0x10000;
  env.symbol_address = [&next](const std::string&, std::uint64_t& address) {
    address = next;
    next += 0x10000;
    return true;
  };
  env.select_handler = [](const ptx::DecodedInst&) -> ptx::ExecFn {
    return [](sm::ExecContext&, const ptx::DecodedInst&) {};
  };
  return ptx::decodeKernel(m, kernel, env);
}

// The message of a ParseError from parsing `text` (named t.ptx) with `limits`; "" when it parses.
std::string parseError(const std::string& text, const ptx::Limits& limits = {}) {
  try {
    ptx::parseModule(text, "t.ptx", limits);
  } catch (const ptx::ParseError& e) {
    return e.what();
  }
  return "";
}

// The message of a ParseError from loading `text` into a default runtime; "" when it loads.
std::string loadError(const std::string& text) {
  Runtime rt;
  try {
    rt.loadModuleString(text, "t.ptx");
  } catch (const ptx::ParseError& e) {
    return e.what();
  }
  return "";
}

std::string limitTail(const std::string& name, std::uint64_t limit) {
  return ", above the limit " + name + " = " + std::to_string(limit) + " (raise it with --limit " + name + "=N)";
}

// ---- Item 1: .file indices ---------------------------------------------------------------------

TEST(PtxHardening, FileIndexAboveTheLimitIsRefusedWithItsPosition) {
  EXPECT_EQ(parseError(ptx(".file 4294967295 \"a.cu\"\n")),
            "t.ptx:4:7: error: the file index is 4294967295" + limitTail("ptx_file_index", 1000000));
  // 64-bit indices do not wrap to small ones.
  EXPECT_EQ(parseError(ptx(".file 18446744073709551615 \"a.cu\"\n")),
            "t.ptx:4:7: error: the file index is 18446744073709551615" + limitTail("ptx_file_index", 1000000));
  ptx::Limits small;
  small.file_index = 10;
  EXPECT_EQ(parseError(ptx(".file 11 \"a.cu\"\n"), small),
            "t.ptx:4:7: error: the file index is 11" + limitTail("ptx_file_index", 10));
  EXPECT_EQ(parseError(ptx(".file 10 \"a.cu\"\n"), small), "");
  // .loc names the same indices.
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  .loc 11 1 1\n  ret;\n}\n"), small),
            "t.ptx:6:8: error: the file index is 11" + limitTail("ptx_file_index", 10));
}

TEST(PtxHardening, LargeFileIndexCostsNoMemoryAndNamesTheSource) {
  // Index 1000000 (the limit) keeps one entry, not a million.
  const ptx::Module m = ptx::parseModule(
      ptx(".file 1000000 \"deep.cu\"\n.visible .entry k()\n{\n  .loc 1000000 42 1\n  ret;\n}\n"), "t.ptx");
  const ptx::Program p = decodeForEstimate(m, "k");
  ASSERT_TRUE(p.files);
  EXPECT_EQ(p.files->size(), 1u);
  EXPECT_EQ(p.sourceLocation(0), "deep.cu:42");
  EXPECT_EQ(p.code[0].debug_file, 1000000u);
}

// ---- Item 2: front-end limits --------------------------------------------------------------------

TEST(PtxHardening, IdentifierLengthIsLimited) {
  ptx::Limits l;
  l.identifier_chars = 13;  // .address_size has 12
  // Thirteen characters are at the limit; fourteen are over it.
  EXPECT_EQ(parseError(ptx(".visible .entry kernel_name_1()\n{\n  ret;\n}\n"), l), "");
  EXPECT_EQ(parseError(ptx(".visible .entry kernel_name_12()\n{\n  ret;\n}\n"), l),
            "t.ptx:4:17: error: the length of identifier 'kernel_name_12' is 14" + limitTail("ptx_identifier_chars", 13));
  // Directives and modifiers too (without their dot).
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  ret.abcdefghijklmn;\n}\n"), l),
            "t.ptx:6:6: error: the length of identifier '.abcdefghijklmn' is 14" +
                limitTail("ptx_identifier_chars", 13));
  // The default: 1024.
  const std::string label(1025, 'L');
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n" + label + ":\n  ret;\n}\n")),
            "t.ptx:6:1: error: the length of identifier '" + std::string(40, 'L') + "...' is 1025" +
                limitTail("ptx_identifier_chars", 1024));
}

TEST(PtxHardening, StatementsPerModuleAreLimited) {
  ptx::Limits l;
  l.statements = 6;
  // .version, .target, sm_90, .address_size, .entry, ret: six.
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  ret;\n}\n"), l), "");
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  ret;\n  ret;\n}\n"), l),
            "t.ptx:7:3: error: the number of statements (directives, instructions, operands, initializer "
            "values and list entries) in the module is 7" + limitTail("ptx_statements", 6));
  // Initializer values count: a file of "0," cannot become gigabytes of IR.
  EXPECT_EQ(parseError(ptx(".global .u32 a[] = {0, 0, 0};\n"), l),
            "t.ptx:4:24: error: the number of statements (directives, instructions, operands, initializer "
            "values and list entries) in the module is 7" + limitTail("ptx_statements", 6));
  // So do operands, however many one instruction has.
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  mov.u32 %r1, 1;\n}\n"), l),
            "t.ptx:6:11: error: the number of statements (directives, instructions, operands, initializer "
            "values and list entries) in the module is 7" + limitTail("ptx_statements", 6));
}

TEST(PtxHardening, RegistersPerFunctionAreCountedBeforeAnythingIsAllocated) {
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  .reg .b32 %r<1000000>;\n  .reg .b32 %q;\n  ret;\n}\n")),
            "t.ptx:7:13: error: the number of registers declared by function 'k' is 1000001" +
                limitTail("ptx_registers", 1000000));
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  .reg .b32 %r<18446744073709551615>;\n  ret;\n}\n")),
            "t.ptx:6:16: error: the number of registers declared by function 'k' is 18446744073709551615" +
                limitTail("ptx_registers", 1000000));
  // The count is per function: two functions of 600000 each are fine.
  const std::string f600k = "{\n  .reg .b32 %r<600000>;\n  ret;\n}\n";
  EXPECT_EQ(parseError(ptx(".func f()\n" + f600k + ".visible .entry k()\n" + f600k)), "");
  ptx::Limits l;
  l.registers = 3;
  EXPECT_EQ(parseError(ptx(".func (.reg .b32 a) f(.reg .b32 b, .reg .b32 c)\n{\n  .reg .b32 d;\n  ret;\n}\n"), l),
            "t.ptx:6:13: error: the number of registers declared by function 'f' is 4" +
                limitTail("ptx_registers", 3));
}

TEST(PtxHardening, RuntimeAppliesTheInputLimits) {
  setInputLimit("ptx_statements", "4");
  const std::string message = loadError(ptx(".visible .entry k()\n{\n  ret;\n}\n"));
  resetInputLimits();
  EXPECT_EQ(message, "t.ptx:4:1: error: the number of statements (directives, instructions, operands, initializer "
                     "values and list entries) in the module is 5" + limitTail("ptx_statements", 4));
  EXPECT_EQ(loadError(ptx(".visible .entry k()\n{\n  ret;\n}\n")), "");
}

// Plain-named registers (`.reg .b32 r<N>`) are looked up by hash: a million of them and a million
// operands parse in linear time.
TEST(PtxHardening, ManyPlainRegisterNamesParseQuickly) {
  constexpr int kNames = 200000;
  std::string text = ptx(".visible .entry k()\n{\n");
  for (int i = 0; i < kNames; ++i) text += "  .reg .b32 v" + std::to_string(i) + ";\n";
  for (int i = 0; i < kNames; ++i) text += "  mov.b32 v" + std::to_string(i) + ", 1;\n";
  text += "  ret;\n}\n";
  const ptx::Module m = ptx::parseModule(text, "t.ptx");
  const auto& body = m.functions[0].body;
  ASSERT_EQ(body.size(), 2u * kNames + 1);
  const ptx::Statement& last_mov = body[body.size() - 2];
  ASSERT_EQ(last_mov.inst.operands.size(), 2u);
  EXPECT_EQ(last_mov.inst.operands[0].kind, ptx::Operand::Kind::Register);
  // A range declared without '%' and an index past it.
  const ptx::Module r = ptx::parseModule(
      ptx(".visible .entry k()\n{\n  .reg .b32 q<4>;\n  mov.b32 q3, q99999999999999999999;\n  ret;\n}\n"), "t.ptx");
  const auto& ops = r.functions[0].body[1].inst.operands;
  EXPECT_EQ(ops[0].kind, ptx::Operand::Kind::Register);
  EXPECT_EQ(ops[1].kind, ptx::Operand::Kind::Symbol);
}

// A function called by many kernels is linked into each: the decoded programs together are bounded
// by the same limit as the text.
TEST(PtxHardening, DecodedInstructionsOfAllKernelsAreBounded) {
  std::string text = ".func big()\n{\n  .reg .b32 %r<2>;\n";
  for (int i = 0; i < 1000; ++i) text += "  add.u32 %r1, %r1, 1;\n";
  text += "  ret;\n}\n";
  for (int k = 0; k < 100; ++k) text += ".visible .entry k" + std::to_string(k) + "()\n{\n  call.uni big;\n  ret;\n}\n";
  const ptx::Module m = ptx::parseModule(ptx(text), "t.ptx");
  ptx::DecodeEnv env;
  env.select_handler = [](const ptx::DecodedInst&) -> ptx::ExecFn {
    return [](sm::ExecContext&, const ptx::DecodedInst&) {};
  };
  ptx::Limits l;
  l.statements = 50000;
  try {
    ptx::decodeKernels(m, env, l);
    FAIL();
  } catch (const ptx::ParseError& e) {
    // 1005 instructions a kernel (its own two and big's 1001, each function with the decoder's implicit
    // `ret` after its body): the 50th crosses 50,000. Its .entry is on line 1009 + 5 x 49.
    EXPECT_EQ(std::string(e.what()),
              "t.ptx:1254:10: error: the number of instructions decoded for the module's kernels (each kernel with "
              "every function it calls) is 50250" + limitTail("ptx_statements", 50000));
  }
  l.statements = 1000000;
  EXPECT_EQ(ptx::decodeKernels(m, env, l).size(), 100u);
}

// Symbols are looked up by hash, not by a scan of the module's variables per reference.
TEST(PtxHardening, ManyGlobalsAndReferencesDecodeQuickly) {
  constexpr int kVars = 20000;
  std::string text;
  for (int i = 0; i < kVars; ++i) text += ".global .u32 g" + std::to_string(i) + ";\n";
  text += ".visible .entry k()\n{\n  .reg .b64 %rd<2>;\n";
  for (int i = 0; i < kVars; ++i) text += "  mov.u64 %rd1, g" + std::to_string(i) + ";\n";
  text += "  ret;\n}\n";
  Runtime rt;
  auto& m = rt.loadModuleString(ptx(text), "t.ptx");
  // The movs, the ret, and the decoder's implicit ret after the body.
  EXPECT_EQ(rt.getFunction(m, "k").program().code.size(), std::size_t(kVars) + 2);
}

// ---- Item 3: reading PTX files -------------------------------------------------------------------

class PtxFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("scgpu_ptx_hardening_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    resetInputLimits();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(PtxFiles, RuntimeReadsOnlyBoundedRegularFiles) {
  Runtime rt;
  // A link to an endless device, a FIFO and a directory: refused, not read forever.
  std::filesystem::create_symlink("/dev/urandom", path("urandom.ptx"));
  ASSERT_EQ(::mkfifo(path("fifo.ptx").c_str(), 0600), 0);
  std::filesystem::create_directory(path("dir.ptx"));
  for (const char* name : {"urandom.ptx", "fifo.ptx"}) {
    try {
      rt.loadModuleFile(path(name));
      FAIL() << name;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                path(name) + ": error: cannot read PTX file: not a regular file (a device, FIFO or socket)");
    }
  }
  EXPECT_THROW(rt.loadModuleFile(path("dir.ptx")), InputError);
  // Larger than --limit input_file_bytes.
  const std::string text = ptx(".visible .entry k()\n{\n  ret;\n}\n");
  std::ofstream(path("k.ptx")) << text;
  EXPECT_NO_THROW(rt.loadModuleFile(path("k.ptx")));
  setInputLimit("input_file_bytes", "16");
  try {
    rt.loadModuleFile(path("k.ptx"));
    FAIL();
  } catch (const LimitError& e) {
    EXPECT_EQ(std::string(e.what()), path("k.ptx") + ": error: the PTX file's size in bytes is " +
                                         std::to_string(text.size()) + limitTail("input_file_bytes", 16));
  }
}

TEST_F(PtxFiles, ParseModuleFileIsBoundedToo) {
  std::filesystem::create_symlink("/dev/urandom", path("urandom.ptx"));
  try {
    ptx::parseModuleFile(path("urandom.ptx"));
    FAIL();
  } catch (const ptx::ParseError& e) {
    EXPECT_EQ(std::string(e.what()),
              path("urandom.ptx") + ":0:0: error: cannot read PTX file: not a regular file (a device, FIFO or socket)");
  }
  std::ofstream(path("k.ptx")) << ptx(".visible .entry k()\n{\n  ret;\n}\n");
  EXPECT_EQ(ptx::parseModuleFile(path("k.ptx")).functions.size(), 1u);
  try {
    ptx::parseModuleFile(path("k.ptx"), {}, 10);
    FAIL();
  } catch (const ptx::ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(limitTail("input_file_bytes", 10)), std::string::npos) << e.what();
  }
}

// ---- Item 4: numbers in names ----------------------------------------------------------------------

TEST(PtxHardening, HugeRegisterIndicesAreErrorsWithPosition) {
  EXPECT_EQ(loadError(ptx(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r99999999999999999999, 1;\n"
                          "  ret;\n}\n")),
            "t.ptx:7:11: error: undeclared register '%r99999999999999999999'");
  EXPECT_EQ(loadError(ptx(".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r18446744073709551616, 1;\n"
                          "  ret;\n}\n")),
            "t.ptx:7:11: error: undeclared register '%r18446744073709551616'");
  EXPECT_EQ(parseError(ptx(".visible .entry k()\n{\n  .reg .b32 %r<99999999999999999999>;\n  ret;\n}\n")),
            "t.ptx:6:16: error: expected an integer that fits in 64 bits, found '99999999999999999999'");
}

// ---- Item 5: sizes are 64-bit and checked -----------------------------------------------------------

TEST(PtxHardening, SharedArrayOf4GiBPlus16IsNotTakenAs16Bytes) {
  EXPECT_EQ(loadError(ptx(".visible .entry k()\n{\n  .shared .align 4 .b8 a[4294967312];\n  ret;\n}\n")),
            "t.ptx:6:24: error: static shared memory takes 4294967312 bytes up to and including .shared variable 'a' "
            "(4294967312 bytes), more than the device's 232448 bytes of shared memory per block");
  // Module-scope .shared too, once the kernel uses it; and the sum of several.
  EXPECT_EQ(loadError(ptx(".shared .align 4 .b8 s1[200000];\n.shared .align 4 .b8 s2[40000];\n"
                          ".visible .entry k()\n{\n  .reg .b64 %rd<3>;\n  mov.u64 %rd1, s1;\n  mov.u64 %rd2, s2;\n"
                          "  ret;\n}\n")),
            "t.ptx:5:22: error: static shared memory takes 240000 bytes up to and including .shared variable 's2' "
            "(40000 bytes), more than the device's 232448 bytes of shared memory per block");
}

TEST(PtxHardening, DimensionsThatOverflow64BitsAreErrors) {
  EXPECT_EQ(loadError(ptx(".global .b8 a[1099511627776][1099511627776];\n.visible .entry k()\n{\n  ret;\n}\n")),
            "t.ptx:4:13: error: the size of 'a' overflows 64 bits (its dimensions multiply to more than 2^64 bytes)");
  EXPECT_EQ(loadError(ptx(".visible .entry k()\n{\n  .local .b32 a[1099511627776][1099511627776];\n  ret;\n}\n")),
            "t.ptx:6:15: error: the size of 'a' overflows 64 bits (its dimensions multiply to more than 2^64 bytes)");
}

TEST(PtxHardening, LocalFramesAndParametersAreBoundedByTheDevice) {
  EXPECT_EQ(loadError(ptx(".visible .entry k()\n{\n  .local .align 4 .b8 a[4294967312];\n  ret;\n}\n")),
            "t.ptx:6:23: error: the frame of 'k' takes 4294967312 bytes per thread up to and including .local variable "
            "'a' (4294967312 bytes), more than the 524288 bytes of local memory a thread may have");
  EXPECT_EQ(loadError(ptx(".func f(.param .b8 p[600000])\n{\n  ret;\n}\n.visible .entry k()\n{\n  ret;\n}\n")),
            "");  // not reachable from a kernel: never decoded
  EXPECT_EQ(loadError(ptx(".visible .entry k(.param .u32 n, .param .align 4 .b8 p[4294967296])\n{\n  ret;\n}\n")),
            "t.ptx:4:54: error: the parameters of kernel 'k' take 4294967300 bytes up to and including 'p' "
            "(4294967296 bytes), more than the 32764 bytes a kernel's parameters may take");
  // At the ceilings: accepted.
  EXPECT_EQ(loadError(ptx(".visible .entry k(.param .align 4 .b8 p[32764])\n{\n  .local .b8 a[524288];\n"
                          "  ret;\n}\n")),
            "");
}

// ---- Items 7, 8, 9: launches ---------------------------------------------------------------------

constexpr const char* kRecursion =
    ".func down()\n{\n  call.uni down;\n  ret;\n}\n"
    ".visible .entry k()\n{\n  call.uni down;\n  ret;\n}\n";

TEST(PtxHardening, RecursionWithoutLocalsStopsAtTheCallDepthLimit) {
  Runtime rt;
  auto& f = rt.getFunction(rt.loadModuleString(ptx(kRecursion), "t.ptx"), "k");
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs()), Error::IllegalAddress);
  ASSERT_TRUE(rt.lastFault().has_value());
  const sm::FaultReport& r = *rt.lastFault();
  EXPECT_EQ(r.kind, "stack overflow");
  EXPECT_EQ(r.kernel, "k");
  EXPECT_EQ(r.message, "call to 'down': the call depth is 1025, above the limit limits.call_depth_frames = 1024 "
                       "(raise it with --set limits.call_depth_frames=N)");
  EXPECT_EQ(r.ptx_location, "t.ptx:6:3");  // the call in 'down'
  EXPECT_EQ(r.warp, 0u);
  EXPECT_EQ(r.thread[0], 0u);
}

TEST(PtxHardening, CallDepthLimitComesFromTheConfig) {
  Runtime rt(GpuConfig::loadDefault({"limits.call_depth_frames=3"}));
  auto& m = rt.loadModuleString(ptx(kRecursion), "t.ptx");
  EXPECT_EQ(rt.launch(rt.getFunction(m, "k"), Dim3(1), Dim3(64), 0, KernelArgs()), Error::IllegalAddress);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_EQ(rt.lastFault()->message, "call to 'down': the call depth is 4, above the limit limits.call_depth_frames = "
                                     "3 (raise it with --set limits.call_depth_frames=N)");
  // Three nested calls are allowed.
  auto& ok = rt.loadModuleString(
      ptx(".func c()\n{\n  ret;\n}\n.func b()\n{\n  call.uni c;\n  ret;\n}\n.func a()\n{\n  call.uni b;\n"
          "  ret;\n}\n.visible .entry k()\n{\n  call.uni a;\n  ret;\n}\n"),
      "ok.ptx");
  EXPECT_EQ(rt.launch(rt.getFunction(ok, "k"), Dim3(1), Dim3(1), 0, KernelArgs()), Error::Success);
}

// The kernel writes %ctaid and %nctaid of the block it runs as, for grids whose x*y is >= 2^32.
constexpr const char* kCtaid =
    ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<7>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ctaid.y;\n  mov.u32 %r3, %ctaid.z;\n"
    "  mov.u32 %r4, %nctaid.x;\n  mov.u32 %r5, %nctaid.y;\n  mov.u32 %r6, %nctaid.z;\n"
    "  st.global.v2.u32 [%rd1], {%r1, %r2};\n  st.global.v2.u32 [%rd1+8], {%r3, %r4};\n"
    "  st.global.v2.u32 [%rd1+16], {%r5, %r6};\n  ret;\n}\n";

TEST(PtxHardening, BlockIdsAre64Bit) {
  // grid.x * grid.y = 2^32 exactly: the 32-bit product was 0 (a division by zero), and linear ids
  // past 2^32 wrapped. The engine runs blocks in order, so late ids are checked through initBlock.
  const ptx::Module m = ptx::parseModule(ptx(kCtaid), "t.ptx");
  const ptx::Program p = decodeForEstimate(m, "k");
  sm::LaunchState launch;
  launch.program = &p;
  launch.grid[0] = 65536;
  launch.grid[1] = 65536;
  launch.grid[2] = 3;
  sm::BlockState b;
  const std::uint64_t linear = 2 * 65536ull * 65536ull + 7 * 65536ull + 5;  // (5, 7, 2)
  sm::initBlock(b, launch, linear, 0);
  EXPECT_EQ(b.linear_id, linear);
  EXPECT_EQ(b.ctaid[0], 5u);
  EXPECT_EQ(b.ctaid[1], 7u);
  EXPECT_EQ(b.ctaid[2], 2u);
  // The largest legal grid's last block.
  launch.grid[0] = 2147483647;
  launch.grid[1] = 65535;
  launch.grid[2] = 65535;
  const std::uint64_t last = 2147483647ull * 65535ull * 65535ull - 1;
  sm::initBlock(b, launch, last, 0);
  EXPECT_EQ(b.ctaid[0], 2147483646u);
  EXPECT_EQ(b.ctaid[1], 65534u);
  EXPECT_EQ(b.ctaid[2], 65534u);
}

TEST(PtxHardening, GridOf2To32BlocksStopsAtTheInstructionBudget) {
  Runtime rt(GpuConfig::loadDefault({"limits.warp_instructions_per_launch=100000"}));
  auto& f = rt.getFunction(rt.loadModuleString(ptx(kCtaid), "t.ptx"), "k");
  const DevicePtr out = rt.malloc(24);
  EXPECT_EQ(rt.launch(f, Dim3(131072, 32768), Dim3(1), 0, KernelArgs().add(out)), Error::BarrierDeadlock);
  ASSERT_TRUE(rt.lastFault().has_value());
  const sm::FaultReport& r = *rt.lastFault();
  EXPECT_EQ(r.kind, "timeout");
  EXPECT_EQ(std::string(driver::errorName(Error::BarrierDeadlock)), "cudaErrorLaunchTimeout");
  // 12 warp instructions a block: the launch stops in the block that crosses 100,000 (the 8334th).
  EXPECT_EQ(r.message, "the number of warp instructions the launch executed is 100008, above the limit "
                       "limits.warp_instructions_per_launch = 100000 (raise it with --set "
                       "limits.warp_instructions_per_launch=N)");
  EXPECT_EQ(r.block[0], 8333u);
  EXPECT_EQ(r.block[1], 0u);
  // Every block wrote its ids; the last to run was the one that stopped the launch.
  const auto got = rt.download<std::uint32_t>(out, 6);
  EXPECT_EQ(got[0], 8333u);
  EXPECT_EQ(got[1], 0u);
  EXPECT_EQ(got[3], 131072u);
  EXPECT_EQ(got[4], 32768u);
}

TEST(PtxHardening, SpinningKernelStopsAtTheInstructionBudget) {
  Runtime rt(GpuConfig::loadDefault({"limits.warp_instructions_per_launch=1000"}));
  auto& f = rt.getFunction(
      rt.loadModuleString(ptx(".visible .entry spin()\n{\nL:\n  bra.uni L;\n}\n"), "spin.ptx"), "spin");
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(64), 0, KernelArgs()), Error::BarrierDeadlock);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_EQ(rt.lastFault()->kind, "timeout");
  EXPECT_NE(rt.lastFault()->message.find("above the limit limits.warp_instructions_per_launch = 1000 (raise it with "
                                         "--set limits.warp_instructions_per_launch=N)"),
            std::string::npos)
      << rt.lastFault()->message;
  EXPECT_EQ(rt.lastFault()->ptx_location, "spin.ptx:7:3");
}

TEST(PtxHardening, LaunchesOutsideCudasRulesAreRefusedNotFaults) {
  Runtime rt;
  auto& f = rt.getFunction(rt.loadModuleString(ptx(".visible .entry k()\n{\n  ret;\n}\n"), "t.ptx"), "k");
  struct Case {
    Dim3 grid, block;
    std::string why;
  };
  const Case cases[] = {
      {Dim3(0), Dim3(1), "grid.x is 0; every grid dimension must be at least 1"},
      {Dim3(1, 1, 0), Dim3(1), "grid.z is 0; every grid dimension must be at least 1"},
      {Dim3(1), Dim3(1, 0), "block.y is 0; every block dimension must be at least 1"},
      {Dim3(2147483648u), Dim3(1), "grid.x is 2147483648, above the device's maximum grid dimension 2147483647"},
      {Dim3(1, 65536), Dim3(1), "grid.y is 65536, above the device's maximum grid dimension 65535"},
      {Dim3(1, 1, 65536), Dim3(1), "grid.z is 65536, above the device's maximum grid dimension 65535"},
      {Dim3(1), Dim3(1025), "block.x is 1025, above the device's maximum block dimension 1024"},
      {Dim3(1), Dim3(1, 1, 65), "block.z is 65, above the device's maximum block dimension 64"},
      {Dim3(1), Dim3(64, 32), "2048 threads per block, above the device's maximum of 1024"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(rt.launch(f, c.grid, c.block, 0, KernelArgs()), Error::InvalidConfiguration) << c.why;
    EXPECT_FALSE(rt.lastFault().has_value()) << c.why;
    EXPECT_EQ(rt.lastLaunchError(),
              "cannot launch kernel 'k' with grid " + std::to_string(c.grid.x) + "x" + std::to_string(c.grid.y) + "x" +
                  std::to_string(c.grid.z) + " and block " + std::to_string(c.block.x) + "x" +
                  std::to_string(c.block.y) + "x" + std::to_string(c.block.z) + ": " + c.why);
    EXPECT_EQ(rt.getLastError(), Error::InvalidConfiguration);
  }
  EXPECT_EQ(rt.launch(f, Dim3(2147483647u, 1, 1), Dim3(1), 1ull << 40, KernelArgs()), Error::InvalidConfiguration);
  EXPECT_EQ(rt.lastLaunchError(), "cannot launch kernel 'k' with grid 2147483647x1x1 and block 1x1x1: 0 bytes of "
                                  "static and 1099511627776 bytes of dynamic shared memory per block exceed the limit "
                                  "of 232448");
  // A launch that runs clears it.
  EXPECT_EQ(rt.launch(f, Dim3(2, 3, 1), Dim3(1024), 0, KernelArgs()), Error::Success);
  EXPECT_EQ(rt.lastLaunchError(), "");
}

// printf's widths and precisions reach the host's C library: bounded to the conversion buffer,
// so `%.999999999f` neither allocates a gigabyte nor pads one.
TEST(PtxHardening, PrintfFieldWidthsAreBounded) {
  const std::string format = "%.999999999f|%0999999999d|%5d\n";
  std::string bytes;
  for (char ch : format) bytes += std::to_string(int(ch)) + ", ";
  bytes += "0";
  const std::string text = ptx(
      ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
      ".global .align 1 .b8 fmt[" + std::to_string(format.size() + 1) + "] = {" + bytes + "};\n"
      ".visible .entry k()\n{\n  .local .align 16 .b8 depot[16];\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<6>;\n"
      "  mov.u64 %rd1, depot;\n  cvta.local.u64 %rd2, %rd1;\n"
      "  mov.u64 %rd3, 4609434218613702656;\n  st.local.u64 [%rd1], %rd3;\n"
      "  mov.u32 %r1, 7;\n  mov.u32 %r2, 42;\n  st.local.v2.u32 [%rd1+8], {%r1, %r2};\n"
      "  mov.u64 %rd4, fmt;\n  cvta.global.u64 %rd5, %rd4;\n"
      "  {\n  .param .b64 param0;\n  st.param.b64 [param0+0], %rd5;\n  .param .b64 param1;\n"
      "  st.param.b64 [param1+0], %rd2;\n  .param .b32 retval0;\n"
      "  call.uni (retval0), vprintf, (param0, param1);\n  }\n  ret;\n}\n");
  Runtime rt;
  auto& f = rt.getFunction(rt.loadModuleString(text, "t.ptx"), "k");
  ASSERT_EQ(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs()), Error::Success);
  const std::string out = rt.takePrintfOutput();
  // Each conversion is cut to the 511 characters of its buffer.
  EXPECT_EQ(out, "1.5" + std::string(508, '0') + "|" + std::string(510, '0') + "7|   42\n");
}

TEST(PtxHardening, LocalMemoryOfEveryResidentThreadMustFitInDeviceMemory) {
  // tiny: 2 SMs x 2048 threads; a 16 MiB stack each is 64 GiB, more than the 4 GiB device (less
  // the 64 KiB launch arena the runtime's stream keeps in device memory and the 4 MiB page-table
  // pool, driver/scgpu_driver.cpp).
  Runtime rt(GpuConfig::loadDefault({"limits.stack_size_bytes=16777216"}));
  auto& f = rt.getFunction(rt.loadModuleString(ptx(".visible .entry k()\n{\n  ret;\n}\n"), "t.ptx"), "k");
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs()), Error::MemoryAllocation);
  EXPECT_FALSE(rt.lastFault().has_value());
  EXPECT_EQ(rt.lastLaunchError(), "cannot launch kernel 'k' with grid 1x1x1 and block 1x1x1: local memory for 4096 "
                                  "resident threads of 16777216 bytes each (the kernel's 0-byte frame, its 0 register "
                                  "slots of 8 bytes and limits.stack_size_bytes = 16777216) is 68719476736 bytes, more "
                                  "than the 4290707456 bytes of device memory free");
  Runtime ok(GpuConfig::loadDefault({"limits.stack_size_bytes=65536"}));
  auto& g = ok.getFunction(ok.loadModuleString(ptx(".visible .entry k()\n{\n  ret;\n}\n"), "t.ptx"), "k");
  EXPECT_EQ(ok.launch(g, Dim3(1), Dim3(1), 0, KernelArgs()), Error::Success);
}

// A million register slots per thread (8 MB) over tiny's 4096 resident threads is 32 GiB of
// register files: refused like local memory, not allocated warp by warp.
TEST(PtxHardening, RegisterSlotsCountAgainstTheLocalMemoryReservation) {
  constexpr int kRegs = 1000000;
  std::string text = ".visible .entry k()\n{\n  .reg .b32 %r<" + std::to_string(kRegs) + ">;\n";
  for (int i = 0; i < kRegs; ++i) text += "  mov.u32 %r" + std::to_string(i) + ", 1;\n";
  text += "  ret;\n}\n";
  Runtime rt;
  auto& f = rt.getFunction(rt.loadModuleString(ptx(text), "t.ptx"), "k");
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(1024), 0, KernelArgs()), Error::MemoryAllocation);
  EXPECT_NE(rt.lastLaunchError().find("its 1000001 register slots of 8 bytes"), std::string::npos) << rt.lastLaunchError();
}

// Recursion through a function with many registers stops when the frames' registers outgrow the
// share of device memory each resident thread has, before the call-depth limit.
TEST(PtxHardening, RecursionWithManyRegistersStopsAtTheRegisterShare) {
  std::string body = ".func down()\n{\n  .reg .b32 %r<20000>;\n";
  for (int i = 0; i < 20000; ++i) body += "  mov.u32 %r" + std::to_string(i) + ", 1;\n";
  body += "  call.uni down;\n  ret;\n}\n.visible .entry k()\n{\n  call.uni down;\n  ret;\n}\n";
  // 4 GiB less the runtime stream's 64 KiB launch arena and the driver's 4 MiB page-table pool,
  // over 4096 threads: 1 MiB - 1040 bytes each, less the 1 KiB stack.
  Runtime rt;
  auto& f = rt.getFunction(rt.loadModuleString(ptx(body), "t.ptx"), "k");
  EXPECT_EQ(rt.launch(f, Dim3(1), Dim3(1), 0, KernelArgs()), Error::IllegalAddress);
  ASSERT_TRUE(rt.lastFault().has_value());
  EXPECT_EQ(rt.lastFault()->kind, "stack overflow");
  // 20001 slots a frame (with the constant 1): the 7th call's frames would take 1120056 bytes.
  EXPECT_EQ(rt.lastFault()->message,
            "call to 'down': the register slots of the call chain take 1120056 bytes per thread, more than the "
            "1046512 bytes per thread that the free device memory leaves for them over every resident thread");
}

// ---- Item 10: zero costs nothing, and device memory is checked first --------------------------

TEST(PtxHardening, ZeroModuleVariablesTakeNoHostMemory) {
  const std::unique_ptr<GpuConfig> cfg = std::make_unique<GpuConfig>(GpuConfig::loadDefault());
  memsys::BackingStore memory(8ull << 30);
  driver::DeviceProperties props = driver::DeviceProperties::fromConfig(*cfg);
  driver::Module m(ptx::parseModule(ptx(".global .align 4 .b8 big[4000000000];\n"
                                        ".global .align 4 .u32 zeros[1000000] = {0, 0, 0, 0};\n"
                                        ".global .align 4 .u32 some[1000000] = {7, 0, 9};\n"
                                        ".visible .entry k()\n{\n  ret;\n}\n"),
                                    "t.ptx"),
                   memory, props);
  // Only the page holding {7, 0, 9}.
  EXPECT_EQ(memory.pagesTouched(), 1u);
  std::uint64_t big = 0, some = 0;
  ASSERT_TRUE(m.globalAddress("big", big));
  ASSERT_TRUE(m.globalAddress("some", some));
  std::uint32_t v[3] = {1, 1, 1};
  memory.read(big + 3999999988ull, v, sizeof(v));  // reads zeros and creates nothing
  EXPECT_EQ(v[0] | v[1] | v[2], 0u);
  memory.read(some, v, sizeof(v));
  EXPECT_EQ(v[0], 7u);
  EXPECT_EQ(v[1], 0u);
  EXPECT_EQ(v[2], 9u);
  EXPECT_EQ(memory.pagesTouched(), 1u);
}

TEST(PtxHardening, BackingStoreZerosCostNothing) {
  memsys::BackingStore memory(1ull << 30);
  const std::uint64_t a = memory.allocate(4 * memsys::BackingStore::kPageBytes);
  std::vector<std::uint8_t> zeros(4 * memsys::BackingStore::kPageBytes, 0);
  memory.write(a, zeros.data(), zeros.size());
  EXPECT_EQ(memory.pagesTouched(), 0u);
  memory.fill(a, 0, zeros.size());
  EXPECT_EQ(memory.pagesTouched(), 0u);
  memory.fill(a, 5, zeros.size());
  EXPECT_EQ(memory.pagesTouched(), 4u);
  // Zero over whole pages gives them back; a partial page is cleared in place.
  memory.fill(a + 16, 0, zeros.size() - 16);
  EXPECT_EQ(memory.pagesTouched(), 1u);
  std::uint8_t b[32];
  memory.read(a, b, sizeof(b));
  EXPECT_EQ(b[15], 5);
  EXPECT_EQ(b[16], 0);
  // A free and a new allocation of the same range reads zeros.
  ASSERT_TRUE(memory.release(a));
  const std::uint64_t again = memory.allocate(64);
  EXPECT_EQ(again, a);
  memory.read(again, b, sizeof(b));
  EXPECT_EQ(b[15], 0);
}

TEST(PtxHardening, ModuleVariablesBeyondDeviceMemoryAreRefusedNamingTheVariable) {
  // tiny: memory.global_size_bytes = 4 GiB; in use before the module: the runtime stream's 64 KiB
  // launch arena.
  EXPECT_EQ(loadError(ptx(".global .align 4 .b8 small[1024];\n.global .align 4 .b8 big[8589934592];\n"
                          ".visible .entry k()\n{\n  ret;\n}\n")),
            "t.ptx:5:22: error: the device memory in use after placing module variable 'big' (8589934592 bytes) is "
            "8590001152, above the limit memory.global_size_bytes = 4294967296 (raise it with --set "
            "memory.global_size_bytes=N)");
}

// ---- Item 6: the register-pressure estimate is near-linear, with the same answers -------------

// registerPressure of every suite kernel, as the per-instruction dataflow (bit set per
// instruction, quadratic memory) computed it before it was made near-linear.
TEST(PtxHardening, RegisterPressureOfTheSuiteIsUnchanged) {
  namespace fs = std::filesystem;
  const std::map<std::string, std::uint32_t> expected = {
      {"sm_75/f16_math.ptx:f16_arith", 12},
      {"sm_75/f16_math.ptx:f16_convert", 25},
      {"sm_75/histogram.ptx:histogram_shared", 12},
      {"sm_75/histogram.ptx:histogram_global", 9},
      {"sm_75/int_hash.ptx:int_hash", 16},
      {"sm_75/mandelbrot.ptx:mandelbrot", 14},
      {"sm_75/reduce_shuffle.ptx:reduce_shuffle", 13},
      {"sm_75/reduce_tree.ptx:reduce_tree", 13},
      {"sm_75/saxpy.ptx:saxpy", 9},
      {"sm_75/sgemm_tiled.ptx:sgemm_tiled", 26},
      {"sm_75/transpose.ptx:transpose_naive", 10},
      {"sm_75/transpose.ptx:transpose_shared", 16},
      {"sm_75/transpose.ptx:transpose_shared_padded", 16},
      {"sm_75/texture_filter.ptx:texture_filter", 15},
      {"sm_75/vector_add.ptx:vector_add", 15},
      {"sm_80/f16_math.ptx:f16_arith", 12},
      {"sm_80/f16_math.ptx:f16_convert", 24},
      {"sm_80/hgemm_tensor.ptx:hgemm_mma", 40},
      {"sm_80/hgemm_tensor.ptx:hgemm_wmma", 41},
      {"sm_80/hgemm_tensor.ptx:hgemm_mma_async", 53},
      {"sm_80/histogram.ptx:histogram_shared", 12},
      {"sm_80/histogram.ptx:histogram_global", 9},
      {"sm_80/int_hash.ptx:int_hash", 16},
      {"sm_80/mandelbrot.ptx:mandelbrot", 14},
      {"sm_80/reduce_shuffle.ptx:reduce_shuffle", 13},
      {"sm_80/reduce_tree.ptx:reduce_tree", 13},
      {"sm_80/saxpy.ptx:saxpy", 9},
      {"sm_80/sgemm_tiled.ptx:sgemm_tiled", 26},
      {"sm_80/transpose.ptx:transpose_naive", 10},
      {"sm_80/transpose.ptx:transpose_shared", 16},
      {"sm_80/transpose.ptx:transpose_shared_padded", 16},
      {"sm_80/texture_filter.ptx:texture_filter", 15},
      {"sm_80/vector_add.ptx:vector_add", 15},
      {"sm_90/bfs.ptx:bfs_level", 29},
      {"sm_90/bitonic_sort.ptx:bitonic_step", 8},
      {"sm_90/bitonic_sort.ptx:bitonic_sort_shared", 14},
      {"sm_90/bitonic_sort.ptx:bitonic_merge_shared", 11},
      {"sm_90/conv_const.ptx:conv1d_const", 32},
      {"sm_90/conv_const.ptx:conv1d_const_tiled", 15},
      {"sm_90/dgemm_tiled.ptx:dgemm_tiled", 32},
      {"sm_90/dot_f64.ptx:f64_math", 27},
      {"sm_90/dot_f64.ptx:dot_f64", 17},
      {"sm_90/f16_math.ptx:f16_arith", 12},
      {"sm_90/f16_math.ptx:f16_convert", 24},
      {"sm_90/faults.ptx:oob_store", 7},
      {"sm_90/faults.ptx:misaligned_load", 7},
      {"sm_90/faults.ptx:trap_kernel", 5},
      {"sm_90/faults.ptx:assert_kernel", 11},
      {"sm_90/faults.ptx:barrier_deadlock", 5},
      {"sm_90/hgemm_tensor.ptx:hgemm_mma", 40},
      {"sm_90/hgemm_tensor.ptx:hgemm_wmma", 41},
      {"sm_90/hgemm_tensor.ptx:hgemm_mma_async", 53},
      {"sm_90/fp8_convert.ptx:fp8_convert", 14},
      {"sm_90/hgemm_wgmma.ptx:hgemm_wgmma", 124},
      {"sm_90/hgemm_tma_wgmma.ptx:hgemm_tma_wgmma", 139},
      {"sm_90/histogram.ptx:histogram_shared", 12},
      {"sm_90/histogram.ptx:histogram_global", 9},
      {"sm_90/int_hash.ptx:int_hash", 16},
      {"sm_90/mandelbrot.ptx:mandelbrot", 14},
      {"sm_90/nbody.ptx:nbody_accel", 29},
      {"sm_90/nbody.ptx:nbody_integrate", 17},
      {"sm_90/printf.ptx:print_values", 16},
      {"sm_90/recursion.ptx:recursion", 8},
      {"sm_90/cluster_histogram.ptx:cluster_histogram", 15},
      {"sm_90/reduce_atomic.ptx:reduce_atomic_int", 16},
      {"sm_90/reduce_atomic.ptx:reduce_atomic_float", 8},
      {"sm_90/reduce_shuffle.ptx:reduce_shuffle", 13},
      {"sm_90/reduce_tree.ptx:reduce_tree", 13},
      {"sm_90/saxpy.ptx:saxpy", 9},
      {"sm_90/scan_block.ptx:scan_block", 15},
      {"sm_90/scan_block.ptx:scan_add_offsets", 8},
      {"sm_90/sgemm_tiled.ptx:sgemm_tiled", 26},
      {"sm_90/spmv_csr.ptx:spmv_csr_scalar", 31},
      {"sm_90/spmv_csr.ptx:spmv_csr_vector", 31},
      {"sm_90/stencil2d.ptx:stencil2d", 14},
      {"sm_90/tma_transpose.ptx:tma_transpose", 14},
      {"sm_90/transpose.ptx:transpose_naive", 10},
      {"sm_90/transpose.ptx:transpose_shared", 16},
      {"sm_90/transpose.ptx:transpose_shared_padded", 16},
      {"sm_90/texture_filter.ptx:texture_filter", 15},
      {"sm_90/vector_add.ptx:vector_add", 15},
      {"sm_90/vote_match.ptx:vote_match", 13},
  };
  std::size_t seen = 0;
  for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
    for (const auto& e : fs::directory_iterator(std::string(SCGPU_SOURCE_DIR) + "/kernels/ptx/" + arch)) {
      const ptx::Module m = ptx::parseModuleFile(e.path().string());
      for (const auto& f : m.functions) {
        if (!f.is_entry || !f.has_body) continue;
        const std::string key = std::string(arch) + "/" + e.path().filename().string() + ":" + f.name;
        auto it = expected.find(key);
        ASSERT_NE(it, expected.end()) << key;
        EXPECT_EQ(driver::registerPressure(decodeForEstimate(m, f.name)), it->second) << key;
        ++seen;
      }
    }
  }
  EXPECT_EQ(seen, expected.size());
}

// A function with 100,000 registers in 100,000 blocks: the per-instruction bit sets needed
// 100,000 x 100,000 bits (1.25 GB) for the liveness and again for the post-dominators.
TEST(PtxHardening, PressureOfAHugeFunctionIsNearLinear) {
  constexpr int kRegs = 100000;
  std::string text = ptx(".visible .entry big(.param .u64 out)\n{\n  .reg .b32 %r<" + std::to_string(kRegs) +
                         ">;\n  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [out];\n");
  for (int i = 0; i < kRegs; ++i)
    text += "  mov.u32 %r" + std::to_string(i) + ", " + std::to_string(i) + ";\n  bra.uni L" + std::to_string(i) +
            ";\nL" + std::to_string(i) + ":\n";
  for (int i = 1; i < kRegs; ++i) text += "  add.u32 %r0, %r0, %r" + std::to_string(i) + ";\n";
  text += "  st.global.u32 [%rd1], %r0;\n  ret;\n}\n";
  const ptx::Module m = ptx::parseModule(text, "t.ptx");
  const ptx::Program p = decodeForEstimate(m, "big");
  // Every %r live before the adds, and the 64-bit address.
  EXPECT_EQ(driver::registerPressure(p), std::uint32_t(kRegs) + 2);
  EXPECT_EQ(driver::registerPressure(p, 255), 255u);
  EXPECT_EQ(driver::estimateRegistersPerThread(p), 255u);
}

// The post-dominator computation (now Cooper-Harvey-Kennedy over the reverse CFG) against the
// fixed point over post-dominator sets it replaced, on random control flow: the same
// reconvergence point for every branch, endless loops included.
std::map<std::uint32_t, std::uint32_t> referenceReconvergence(const ptx::Program& prog, const ptx::DecodedFunction& f) {
  using ptx::Op;
  const auto& code = prog.code;
  const auto& tables = prog.branch_tables_flat;
  const std::uint32_t begin = f.entry_pc, end = f.end_pc;
  std::vector<bool> leader(end - begin + 1, false);
  leader[0] = true;
  auto is_terminator = [](const ptx::DecodedInst& d) {
    return d.op == Op::Bra || d.op == Op::BrxIdx || d.op == Op::Ret || d.op == Op::Exit || d.op == Op::Trap;
  };
  for (std::uint32_t pc = begin; pc < end; ++pc) {
    const auto& d = code[pc];
    if (d.op == Op::Bra) leader[d.target - begin] = true;
    if (d.op == Op::BrxIdx)
      for (std::uint32_t k = 0; k < d.aux; ++k) leader[tables[d.target + k] - begin] = true;
    if (is_terminator(d)) leader[pc + 1 - begin] = true;
  }
  std::vector<std::uint32_t> block_of(end - begin), starts;
  for (std::uint32_t pc = begin; pc < end; ++pc) {
    if (leader[pc - begin]) starts.push_back(pc);
    block_of[pc - begin] = std::uint32_t(starts.size() - 1);
  }
  const std::size_t n = starts.size(), exit_node = n;
  std::vector<std::vector<std::size_t>> succ(n + 1);
  for (std::size_t b = 0; b < n; ++b) {
    const std::uint32_t last = (b + 1 < n ? starts[b + 1] : end) - 1;
    const auto& d = code[last];
    const bool guarded = d.guard != ptx::kNoSlot;
    auto fallthrough = [&] { succ[b].push_back(last + 1 < end ? block_of[last + 1 - begin] : exit_node); };
    switch (d.op) {
      case Op::Bra: succ[b].push_back(block_of[d.target - begin]); if (guarded) fallthrough(); break;
      case Op::BrxIdx:
        for (std::uint32_t k = 0; k < d.aux; ++k) succ[b].push_back(block_of[tables[d.target + k] - begin]);
        if (guarded) fallthrough();
        break;
      case Op::Ret: case Op::Exit: case Op::Trap: succ[b].push_back(exit_node); if (guarded) fallthrough(); break;
      default: fallthrough();
    }
  }
  std::vector<std::vector<bool>> pdom(n + 1, std::vector<bool>(n + 1, true));
  pdom[exit_node].assign(n + 1, false);
  pdom[exit_node][exit_node] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t bi = n; bi-- > 0;) {
      std::vector<bool> s(n + 1, true);
      for (auto sb : succ[bi])
        for (std::size_t w = 0; w <= n; ++w) s[w] = s[w] && pdom[sb][w];
      s[bi] = true;
      if (s != pdom[bi]) {
        pdom[bi] = s;
        changed = true;
      }
    }
  }
  auto count = [](const std::vector<bool>& v) { return std::size_t(std::count(v.begin(), v.end(), true)); };
  std::map<std::uint32_t, std::uint32_t> out;
  for (std::size_t b = 0; b < n; ++b) {
    const std::uint32_t last = (b + 1 < n ? starts[b + 1] : end) - 1;
    const auto& d = code[last];
    if (d.op != Op::Bra && d.op != Op::BrxIdx) continue;
    std::uint32_t r = 0xFFFFFFFFu;
    const std::size_t mine = count(pdom[b]);
    for (std::size_t c = 0; c <= n; ++c) {
      if (c == b || !pdom[b][c]) continue;
      if (count(pdom[c]) + 1 == mine) {
        if (c != exit_node) r = starts[c];
        break;
      }
    }
    out[last] = r;
  }
  return out;
}

TEST(PtxHardening, ReconvergenceMatchesThePostDominatorSetsOnRandomControlFlow) {
  std::mt19937 rng(15);
  int branches = 0;
  for (int round = 0; round < 300; ++round) {
    const int blocks = 1 + int(rng() % 12);
    std::string body = "  .reg .pred %p;\n  .reg .b32 %r<2>;\n";
    for (int b = 0; b < blocks; ++b) {
      body += "B" + std::to_string(b) + ":\n  add.u32 %r0, %r0, 1;\n";
      switch (rng() % 6) {
        case 0: body += "  @%p bra B" + std::to_string(rng() % blocks) + ";\n"; break;
        case 1: body += "  bra.uni B" + std::to_string(rng() % blocks) + ";\n"; break;
        case 2: body += "  @%p ret;\n"; break;
        case 3: body += "  ret;\n"; break;
        case 4: {
          body += "  T" + std::to_string(b) + ": .branchtargets B" + std::to_string(rng() % blocks) + ", B" +
                  std::to_string(rng() % blocks) + ";\n  brx.idx %r1, T" + std::to_string(b) + ";\n";
          break;
        }
        default: break;
      }
    }
    body += "  ret;\n";
    const ptx::Module m = ptx::parseModule(ptx(".visible .entry k()\n{\n" + body + "}\n"), "t.ptx");
    const ptx::Program p = decodeForEstimate(m, "k");
    for (const auto& [pc, expected] : referenceReconvergence(p, p.functions[0])) {
      EXPECT_EQ(p.code[pc].reconverge, expected) << "pc " << pc << " in\n" << body;
      ++branches;
    }
  }
  EXPECT_GT(branches, 500);
}

// And on every suite kernel (all functions of every kernel's program).
TEST(PtxHardening, ReconvergenceOfTheSuiteIsUnchanged) {
  namespace fs = std::filesystem;
  int branches = 0;
  for (const auto& e : fs::directory_iterator(std::string(SCGPU_SOURCE_DIR) + "/kernels/ptx/sm_90")) {
    const ptx::Module m = ptx::parseModuleFile(e.path().string());
    for (const auto& f : m.functions) {
      if (!f.is_entry || !f.has_body) continue;
      const ptx::Program p = decodeForEstimate(m, f.name);
      for (const auto& df : p.functions) {
        if (df.builtin != ptx::DecodedFunction::Builtin::None) continue;
        for (const auto& [pc, expected] : referenceReconvergence(p, df)) {
          EXPECT_EQ(p.code[pc].reconverge, expected) << f.name << " pc " << pc;
          ++branches;
        }
      }
    }
  }
  EXPECT_GT(branches, 50);
}

}  // namespace
}  // namespace scgpu
