#!/usr/bin/env python3
"""Writes the initial seed corpora of the fuzz targets and the data files of the launch target.

Run once from anywhere (python3 fuzz/make_seeds.py [STATS_JSON...]); the committed corpora are
these seeds plus what campaigns added, minimised with -merge=1 (docs/fuzzing.md). The optional
arguments are `scgpu run --stats-json` outputs to seed the stats target with.
"""
import pathlib
import re
import struct
import sys

root = pathlib.Path(__file__).resolve().parent.parent
fuzz = root / "fuzz"


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)


def npy(descr, values, fmt):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<%d%s" % (len(values), fmt), *values)


# ---- launch data: small files a fuzzed launch file can name (relative to fuzz/data/launch/) ----
data = fuzz / "data" / "launch"
add_one = """.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 add_one_param_0, .param .u32 add_one_param_1)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<7>;
\t.reg .b64 %rd<5>;
\tld.param.u64 %rd1, [add_one_param_0];
\tld.param.u32 %r2, [add_one_param_1];
\tmov.u32 %r3, %ctaid.x;
\tmov.u32 %r4, %ntid.x;
\tmov.u32 %r5, %tid.x;
\tmad.lo.s32 %r1, %r3, %r4, %r5;
\tsetp.ge.u32 %p1, %r1, %r2;
\t@%p1 bra $L__done;
\tcvta.to.global.u64 %rd2, %rd1;
\tmul.wide.u32 %rd3, %r1, 4;
\tadd.s64 %rd4, %rd2, %rd3;
\tld.global.u32 %r6, [%rd4];
\tadd.s32 %r6, %r6, 1;
\tst.global.u32 [%rd4], %r6;
$L__done:
\tret;
}
"""
write(data / "add_one.ptx", add_one)
write(data / "saxpy.ptx", (root / "kernels/ptx/sm_90/saxpy.ptx").read_text())
write(data / "x.bin", struct.pack("<16f", *[i * 0.5 for i in range(16)]))
write(data / "x.npy", npy("<f4", [i * 0.5 for i in range(16)], "f"))
write(data / "y_expected.npy", npy("<f4", [i * 1.0 + 2 * i * 0.5 for i in range(16)], "f"))
write(data / "in.npy", npy("<u2", [1, 2, 3, 4], "H"))
write(data / "want.npy", npy("<u4", [2, 3, 4], "I"))
write(data / "v.bin", struct.pack("<4i", -1, 0, 1, 2))
write(data / "expected.bin", struct.pack("<64I", *([8] * 64)))
write(data / "h.npy", npy("<f2", [1.0, 0.5, -2.0], "e"))
write(data / "fuzz.yaml", "# launch files fuzzed by fuzz/launch.cpp are placed here (never written)\n")

# ---- PTX: the suite's modules, tests' snippets, hand-made ones ----
ptx_seeds = {}
for p in sorted((root / "kernels/ptx/sm_90").glob("*.ptx")):
    ptx_seeds["suite_" + p.stem] = p.read_text()
raw = re.compile(r'R"\((.*?)\)"', re.S)
for test in sorted((root / "testbench").glob("*_test.cpp")):
    for i, m in enumerate(raw.finditer(test.read_text())):
        text = m.group(1)
        if ".entry" in text or ".func" in text:
            ptx_seeds["test_%s_%d" % (test.stem, i)] = text
head = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
ptx_seeds["add_one"] = add_one
ptx_seeds["min_entry"] = head + ".visible .entry k()\n{\n\tret;\n}\n"
ptx_seeds["globals"] = head + """.global .align 4 .u32 table[4] = {1, 2, 3, 4};
.const .align 8 .u64 ptrs[2] = {table, generic(table)};
.global .align 1 .b8 msg[6] = {104, 105, 0, 0, 0, 0};
.visible .entry k(.param .u64 out)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<4>;
\tld.param.u64 %rd1, [out];
\tcvta.to.global.u64 %rd2, %rd1;
\tld.global.u32 %r1, [table+4];
\tld.const.u64 %rd3, [ptrs];
\tst.global.u32 [%rd2], %r1;
\tret;
}
"""
ptx_seeds["call_recursion"] = head + """.func (.param .b32 r) fact(.param .b32 n)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<5>;
\tld.param.b32 %r1, [n];
\tsetp.le.s32 %p1, %r1, 1;
\t@%p1 bra $L_one;
\tadd.s32 %r2, %r1, -1;
\t{
\t.param .b32 a;
\t.param .b32 b;
\tst.param.b32 [a], %r2;
\tcall.uni (b), fact, (a);
\tld.param.b32 %r3, [b];
\t}
\tmul.lo.s32 %r4, %r3, %r1;
\tst.param.b32 [r], %r4;
\tret;
$L_one:
\tmov.u32 %r4, 1;
\tst.param.b32 [r], %r4;
\tret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [out];
\tld.param.u32 %r1, [n];
\tand.b32 %r1, %r1, 7;
\t{
\t.param .b32 a;
\t.param .b32 b;
\tst.param.b32 [a], %r1;
\tcall.uni (b), fact, (a);
\tld.param.b32 %r2, [b];
\t}
\tcvta.to.global.u64 %rd2, %rd1;
\tst.global.u32 [%rd2], %r2;
\tret;
}
"""
ptx_seeds["shared_barrier"] = head + """.visible .entry k(.param .u64 out) .reqntid 64, 1, 1
{
\t.shared .align 4 .b8 s[256];
\t.reg .b32 %r<6>;
\t.reg .b64 %rd<5>;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, s;
\tshl.b32 %r3, %r1, 2;
\tadd.s32 %r4, %r2, %r3;
\tst.shared.u32 [%r4], %r1;
\tbar.sync 0;
\txor.b32 %r3, %r3, 4;
\tadd.s32 %r4, %r2, %r3;
\tld.shared.u32 %r5, [%r4];
\tshfl.sync.bfly.b32 %r5, %r5, 1, 31, -1;
\tld.param.u64 %rd1, [out];
\tcvta.to.global.u64 %rd2, %rd1;
\tmul.wide.u32 %rd3, %r1, 4;
\tadd.s64 %rd4, %rd2, %rd3;
\tatom.global.add.u32 %r5, [%rd4], %r5;
\tret;
}
"""
ptx_seeds["loop_forever"] = head + ".visible .entry k()\n{\n$L:\n\tbra $L;\n}\n"
ptx_seeds["file_loc"] = head + """.file 1 "k.cu"
.visible .entry k(.param .u64 p)
{
\t.reg .b64 %rd<2>;
\t.loc 1 3 5
\tld.param.u64 %rd1, [p];
\ttrap;
}
"""
for name, text in ptx_seeds.items():
    write(fuzz / "corpus/ptx" / (name + ".ptx"), text)
    write(fuzz / "corpus/exec" / (name + ".ptx"), text)

# ---- config ----
for p in sorted((root / "configs").glob("*.yaml")):
    write(fuzz / "corpus/config" / p.name, p.read_text())
write(fuzz / "corpus/config/extends_overrides", "extends: tiny\nsm:\n  count: 4\n\0sm.count=8\nl2.slices=4\nlimits={stack_size_bytes: 2048}\n")
write(fuzz / "corpus/config/anchors", "extends: hopper\nx: &a {count: 2}\nsm: *a\n")
write(fuzz / "corpus/config/dram_preset", "extends: ampere\ndram:\n  preset: hbm3\n  channels: 2\nmemory:\n  global_size_bytes: 0x100000\n")
write(fuzz / "corpus/config/empty", "")

# ---- launch ----
launches = {
    "add_one": "ptx: add_one.ptx\nkernel: add_one\ngrid: 4\nblock: 256\nbuffers:\n  data: {type: u32, count: 1000, init: iota, output: data.bin}\nargs: [data, {scalar: {type: u32, value: 1000}}]\n",
    "add_one_expect": "ptx: add_one.ptx\nkernel: add_one\ngrid: 2\nblock: 32\nbuffers:\n  data: {type: u32, count: 64, init: {fill: 7}, expect: expected.bin}\nargs: [data, {scalar: {type: u32, value: 64}}]\n",
    "saxpy": "ptx: saxpy.ptx\nkernel: saxpy\ngrid: 1\nblock: [16, 1, 1]\ndynamic_shared_bytes: 0\nbuffers:\n  x: {type: f32, init: {file: x.npy}}\n  y:\n    type: f32\n    count: 16\n    init: iota\n    output: y.npy\n    expect: y_expected.npy\n    tolerance: {rel: 1e-6, abs: 1e-6}\n  scratch: {type: u32, count: 16, init: {random: {seed: 7, min: 0, max: 99}}}\nargs:\n  - {scalar: {type: s32, value: 16}}\n  - {scalar: {type: f32, value: 2.0}}\n  - x\n  - y\n",
    "every_feature": "# every feature once\nptx: add_one.ptx\nkernel: add_one\ngrid: [2, 2, 1]\nblock: [32]\ndynamic_shared_bytes: 1024\nbuffers:\n  a: {type: f32, count: 64, init: {random: {seed: 7, min: -1, max: 1}}}\n  b: {type: u8, count: 300, init: iota}\n  c: {type: s16, count: 3, init: {fill: -3}}\n  d: {type: f16, init: {values: [1, 0.5, -2, .inf]}}\n  e: {type: f32, init: {file: x.bin}, output: e.npy, expect: x.bin, tolerance: {rel: 1e-5, abs: 1e-6}}\n  f: {type: u64, count: 2}\n  g: {type: u16, init: {file: in.npy}}\n  h: {type: s32, init: {file: v.bin}}\n  i: {type: f64, count: 3, init: {fill: 0x1.8p3}}\n  j: {type: f16, init: {file: h.npy}}\n  k: {type: u32, count: 3, init: {values: [0xff, 0x10, 4294967295]}, expect: want.npy}\n  l: {type: s64, count: 4, init: {random: {seed: 5}}}\n  m: {type: s8, count: 7, init: {values: [-128, 127, 0, 1, -1, 5, 6]}}\n  n: {type: f64, count: 2, init: {values: [nan, -.inf]}}\nargs: [a, {scalar: {type: u32, value: 64}}]\n",
    "wrong_args": "ptx: add_one.ptx\nkernel: add_one\ngrid: 1\nblock: 32\nbuffers:\n  a: {type: u32, count: 32}\nargs: [a, {scalar: {type: u64, value: 1}}, a]\n",
    "no_kernel": "ptx: add_one.ptx\nkernel: nope\ngrid: [1]\nblock: [1, 1, 1]\nargs: []\n",
    "anchors": "ptx: add_one.ptx\nkernel: add_one\ngrid: &g 1\nblock: *g\nbuffers:\n  a: &b {type: u32, count: 8}\n  c: *b\nargs: [a, {scalar: {type: u32, value: 8}}]\n",
}
for name, text in launches.items():
    write(fuzz / "corpus/launch" / (name + ".yaml"), text)

# ---- stats ----
small_a = '{"config": {"name": "tiny", "sm": {"count": 2}}, "launches": [{"kernel": "k", "warp_instructions": 100, "wall_seconds": 0.5}], "stats": {"counters": {"gpu.sm[0].issued": 10, "x": 1.5e3, "s": "str", "b": true, "n": null}}}'
small_b = '{"config": {"name": "tiny", "sm": {"count": 4}}, "launches": [{"kernel": "k", "warp_instructions": 120, "wall_seconds": 0.7}, {"kernel": "j"}], "stats": {"counters": {"gpu.sm[0].issued": 0, "x": 1500.0, "s": "other", "b": false, "y": [1, 2, {"z": -0.0}]}}}'
write(fuzz / "corpus/stats/small_pair", small_a + "\0" + small_b)
write(fuzz / "corpus/stats/small_same", small_a)
write(fuzz / "corpus/stats/not_object", "[1, 2, 3]\0{}")
write(fuzz / "corpus/stats/unicode", '{"\\u00e9\\ud83d\\ude00": 1, "a/b~c": {"": 2}}\0{"a/b~c": {"": 3}}')
write(fuzz / "corpus/stats/numbers", '{"a": 18446744073709551615, "b": -9223372036854775808, "c": 1e308, "d": 0}\0{"a": 0, "b": 1, "c": -1e308, "d": 5e-324}')
runs = [pathlib.Path(p).read_text() for p in sys.argv[1:]]
for i, text in enumerate(runs):
    write(fuzz / "corpus/stats" / ("run_%d_same" % i), text)
if len(runs) >= 2:
    write(fuzz / "corpus/stats/run_pair", runs[0] + "\0" + runs[1])
