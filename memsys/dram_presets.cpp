// DRAM presets. Each lists, per value, where it comes from. Public AC-timing tables for graphics
// DRAM are scarce (JEDEC leaves GDDR6 AC timings to vendors; HBM3 vendors publish none), so some
// values come from open simulators that transcribed datasheets; those are named with the part or
// document they cite. Values in cycles are at the preset's reference command clock (CK).
//
// Conventions shared with DramChannel (docs/dram.md):
//  - tCL: READ command to first data (RL); tCWL: WRITE command to first data (WL).
//  - tWTR: end of write data to a READ command (JEDEC "internal write to read", tCDLR in GDDR);
//    one value, so presets with tWTR_S/tWTR_L take tWTR_L (same bank group, the worse case).
//  - tRTW: READ to WRITE command delay, as GDDR datasheets define it: tCL + burst + 2 - tCWL
//    (2 cycles of bus turnaround) unless the source gives the value itself.
//  - tRTP: READ to PRECHARGE of the same bank (tRTP_L where the source has two).
//  - burst cycles = burst_length / transfers_per_clock; access_bytes = bus_width_bits/8 * burst_length.
#include "memsys/dram_presets.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scgpu::memsys {

namespace {

struct Preset {
  const char* name;
  double clock_mhz;  // reference command clock
  bool rtw_formula;  // tRTW = tCL + burst + 2 - tCWL (else the source's value, rescaled)
  DramParams params;
};

DramParams base(const char* standard) {
  DramParams p;
  p.standard = standard;
  p.channels = 1;  // per-GPU channel counts come from the GPU config
  p.read_queue_entries = 64;
  p.write_queue_entries = 64;
  p.write_drain_high_watermark = 48;
  p.write_drain_low_watermark = 16;
  p.scheduler = "fr_fcfs";
  p.page_policy = "open";
  p.refresh = true;
  // Consecutive accesses rotate over bank groups (then banks) before columns: a stream keeps the
  // data bus busy at tCCD_S spacing, as GPU memory controllers interleave banks finely.
  p.address_mapping = "row_column_bank";
  p.bank_interleave_bytes = 32;  // every access to the next bank group (a preset may keep more in one row)
  p.channel_interleave_bytes = 256;
  p.controller_latency_cycles = 4;
  return p;
}

std::vector<Preset> makePresets() {
  std::vector<Preset> v;

  // ---- GDDR5: SK hynix H5GQ1H24AFR, 1 Gb x32, at CK = 1000 MHz (4 Gb/s per pin) ----------------
  // Organisation (JESD212 GDDR5; H5GQ1H24AFR datasheet): 16 banks in 4 bank groups, 4096 rows,
  // 2 KB page, x32, BL8; WCK = 2 x CK with DDR data, so 4 transfers per CK and 2 CK per burst.
  // Timings: GPGPU-Sim's GTX 480 config, "-gpgpu_dram_timing_opt nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:
  // RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2" (from the H5GQ1H24AFR datasheet),
  // and gem5's GDDR5_4000_2x32 (same part at 1 ns tCK): tRRD 5.5 ns -> 6, tFAW (tXAW) 23 ns,
  // tRFC 65 ns, tWTR 5 ns, tRTP 2 tCK, tCCD_L 3 tCK.
  // tREFI 3.9 us: 32 ms retention / 8192 REF (GDDR3/GDDR5 1 Gb parts, e.g. Qimonda HYB18H512321).
  {
    DramParams p = base("gddr5");
    p.bank_groups = 4, p.banks_per_group = 4, p.rows = 4096, p.row_bytes = 2048;
    p.bus_width_bits = 32, p.transfers_per_clock = 4, p.access_bytes = 32;
    DramTimingParams& t = p.timing;
    t.burst_length = 8;
    t.tRCD = 12, t.tRP = 12, t.tRAS = 28, t.tRC = 40, t.tCL = 12, t.tCWL = 4;
    t.tCCD_S = 2, t.tCCD_L = 3, t.tRRD_S = 6, t.tRRD_L = 6, t.tFAW = 23;
    t.tWTR = 5, t.tWR = 12, t.tRTP = 2, t.tREFI = 3900, t.tRFC = 65;
    t.tRTW = t.tCL + t.burst_length / p.transfers_per_clock + 2 - t.tCWL;  // 12
    v.push_back({"gddr5", 1000.0, true, p});
  }

  // ---- GDDR6: Micron MT61K256M32 (8 Gb, 2 x16 channels), 14 Gb/s, CK = 1750 MHz ----------------
  // Organisation per channel (JESD250 GDDR6; Micron 8Gb GDDR6 brief, Table 3): 16 banks (BA[3:0])
  // in 4 bank groups, 16384 rows (R[13:0]), 2 KB page, x16, 256-bit prefetch = BL16 = 32 B;
  // DQ runs at 8 x CK (Micron Figure 4: CK f, DQ 8f), so 2 CK per burst.
  // Row timings: Micron's AC timing table as transcribed in Diamond Light Source's open GDDR6
  // controller (gddr6_ctrl_timing_defs.vhd, "taken from table 47"): tRCDRD 18 ns -> 32,
  // tRP 17 ns -> 30, tRAS 28 ns -> 49, tRC 45 ns -> 79, tWR 18 ns -> 32, tWTR 2 tCK + 4 ns -> 9,
  // tRFCab 110 ns -> 193, tREFI 1.9 us -> 3325 (16k REF / 32 ms).
  // Latencies and bank-group spacing: Ramulator 2 GDDR6 preset at tCK 570 ps: CL 24, CWL 6,
  // RTP 4, tRRD_S 5 / tRRD_L 6 / tFAW 28 (x16 tables), tCCD_L = 1.5 x tCCD_S (nCCDL 6 : nCCDS 4).
  {
    DramParams p = base("gddr6");
    p.bank_groups = 4, p.banks_per_group = 4, p.rows = 16384, p.row_bytes = 2048;
    p.bus_width_bits = 16, p.transfers_per_clock = 8, p.access_bytes = 32;
    DramTimingParams& t = p.timing;
    t.burst_length = 16;
    t.tRCD = 32, t.tRP = 30, t.tRAS = 49, t.tRC = 79, t.tCL = 24, t.tCWL = 6;
    t.tCCD_S = 2, t.tCCD_L = 3, t.tRRD_S = 5, t.tRRD_L = 6, t.tFAW = 28;
    t.tWTR = 9, t.tWR = 32, t.tRTP = 4, t.tREFI = 3325, t.tRFC = 193;
    t.tRTW = t.tCL + t.burst_length / p.transfers_per_clock + 2 - t.tCWL;  // 22
    v.push_back({"gddr6", 1750.0, true, p});
  }

  // ---- HBM2: one 64-bit pseudo channel, 2 Gb/s, CK = 1000 MHz ------------------------------------
  // Organisation (JESD235 pseudo-channel mode; DRAMSys HBM2 memspec; gem5 HBM_2000_4H_1x64):
  // 64-bit pseudo channel, BL4 = 32 B, DDR, 16 banks in 4 bank groups, 1 KB page, 32768 rows.
  // Timings: DRAMSys configs/memspec/HBM2.json (tCK 1 ns; memoryId: AMD Vega HBM2 timings as
  // published by ComputerBase, 2019), the same values as gem5's HBM_2000_4H_1x64: RCDRD 12, RP 14,
  // RAS 28, RC 42, RL 17, WL 7, CCDS 2, CCDL 3, RRDS 4, RRDL 6, FAW 16, WTRL 9 (WTRS 4), RTW 18,
  // WR 14, RTP 5, REFI 3900 (3.9 us, JESD235), RFC 220.
  {
    DramParams p = base("hbm2");
    p.bank_groups = 4, p.banks_per_group = 4, p.rows = 32768, p.row_bytes = 1024;
    p.bus_width_bits = 64, p.transfers_per_clock = 2, p.access_bytes = 32;
    DramTimingParams& t = p.timing;
    t.burst_length = 4;
    t.tRCD = 12, t.tRP = 14, t.tRAS = 28, t.tRC = 42, t.tCL = 17, t.tCWL = 7;
    t.tCCD_S = 2, t.tCCD_L = 3, t.tRRD_S = 4, t.tRRD_L = 6, t.tFAW = 16;
    t.tWTR = 9, t.tRTW = 18, t.tWR = 14, t.tRTP = 5, t.tREFI = 3900, t.tRFC = 220;
    v.push_back({"hbm2", 1000.0, false, p});
  }

  // ---- HBM3: one 32-bit pseudo channel, 5.2 Gb/s (H100 SXM class), CK = 1300 MHz ----------------
  // Organisation (JESD238A as encoded in Ramulator 2's HBM3 model): 16 channels x 2 pseudo
  // channels of 32 bits per stack, BL8 = 32 B, DQ at 4 x CK (2 CK per burst), 16 banks in 4 bank
  // groups per pseudo channel (stack IDs not modelled), 1 KB page, 32768 rows (16 Gb die).
  // Timings: Ramulator 2 preset "HBM3_5.2Gbps": CL 19, RCDRD 19, RP 19, RAS 45, RC 63, WR 21,
  // RTPL 8, CWL 6, CCDS 2, CCDL 4, RRDS 2, RRDL 4, WTRL 11, FAW 39, REFI 5070 (3.9 us); tRFC
  // 450 ns for a 16 Gb die (its JESD238A table) -> 585. Ramulator notes that no vendor has published
  // HBM3 AC timings and that these are HBM2's nanosecond values (DRAMsim3 HBM2_8Gb_x128) at the
  // HBM3 clock: treat them as an estimate.
  {
    DramParams p = base("hbm3");
    p.bank_groups = 4, p.banks_per_group = 4, p.rows = 32768, p.row_bytes = 1024;
    p.bus_width_bits = 32, p.transfers_per_clock = 4, p.access_bytes = 32;
    DramTimingParams& t = p.timing;
    t.burst_length = 8;
    t.tRCD = 19, t.tRP = 19, t.tRAS = 45, t.tRC = 63, t.tCL = 19, t.tCWL = 6;
    t.tCCD_S = 2, t.tCCD_L = 4, t.tRRD_S = 2, t.tRRD_L = 4, t.tFAW = 39;
    t.tWTR = 11, t.tWR = 21, t.tRTP = 8, t.tREFI = 5070, t.tRFC = 585;
    t.tRTW = t.tCL + t.burst_length / p.transfers_per_clock + 2 - t.tCWL;  // 17
    v.push_back({"hbm3", 1300.0, true, p});
  }
  return v;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> v = makePresets();
  return v;
}

const Preset& find(const std::string& standard) {
  for (const Preset& p : presets())
    if (standard == p.name) return p;
  std::string names;
  for (const Preset& p : presets()) names += std::string(names.empty() ? "" : ", ") + p.name;
  throw std::invalid_argument("unknown DRAM standard '" + standard + "'; known: " + names);
}

// Cycles at `to` MHz of a duration that takes `cycles` at `from` MHz, rounded up (a minimum delay
// must not shrink); the small epsilon keeps exact ratios exact.
std::uint32_t up(std::uint32_t cycles, double from, double to) {
  if (cycles == 0) return 0;
  double v = std::ceil(double(cycles) * to / from - 1e-9);
  return std::uint32_t(std::max(1.0, v));
}

}  // namespace

std::vector<std::string> dramPresetNames() {
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  return names;
}

double dramPresetClockMhz(const std::string& standard) { return find(standard).clock_mhz; }

DramParams dramPreset(const std::string& standard) { return find(standard).params; }

DramParams dramPreset(const std::string& standard, double dram_clock_mhz) {
  const Preset& pr = find(standard);
  if (!(dram_clock_mhz > 0.0))
    throw std::invalid_argument("dram_clock_mhz must be positive (got " + std::to_string(dram_clock_mhz) + ")");
  DramParams p = pr.params;
  const double f0 = pr.clock_mhz, f = dram_clock_mhz;
  DramTimingParams& t = p.timing;
  // Nanosecond-specified timings scale with the clock; tCCD_S/L stay (they are burst-bound in tCK).
  for (std::uint32_t* x : {&t.tRCD, &t.tRP, &t.tRAS, &t.tRC, &t.tCL, &t.tCWL, &t.tRRD_S, &t.tRRD_L, &t.tFAW, &t.tWTR,
                           &t.tWR, &t.tRTP, &t.tRFC})
    *x = up(*x, f0, f);
  t.tREFI = std::uint32_t(std::floor(double(t.tREFI) * f / f0 + 1e-9));  // an average interval: round down
  if (pr.rtw_formula)
    t.tRTW = std::max(t.tCL + t.burst_length / p.transfers_per_clock + 2, t.tCWL) - t.tCWL;
  else
    t.tRTW = up(t.tRTW, f0, f);
  return p;
}

}  // namespace scgpu::memsys
