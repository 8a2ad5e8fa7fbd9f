// DRAM standard presets: complete DramParams (organisation of one channel, timings in command-clock
// cycles, controller settings) for gddr5, gddr6, hbm2 and hbm3, built from public sources named
// in dram_presets.cpp and docs/dram.md.
//
// Timings in cycles only mean something at a clock: each preset has a reference command clock
// (dramPresetClockMhz) at which its cycle counts are the sourced ones. dramPreset(name, mhz)
// rescales the nanosecond-based timings to another command clock (rounding up, as JEDEC does),
// so a config whose clocks.dram_clock_mhz differs from the reference stays consistent.
#pragma once

#include <string>
#include <vector>

#include "memsys/memsys_params.h"

namespace scgpu::memsys {

// The preset at its reference clock. Unknown name: std::invalid_argument listing the names.
DramParams dramPreset(const std::string& standard);
// The preset with its timings rescaled to `dram_clock_mhz` (the command clock, tCK = 1/f).
DramParams dramPreset(const std::string& standard, double dram_clock_mhz);
// The command clock at which the preset's cycle counts are the sourced values.
double dramPresetClockMhz(const std::string& standard);
// "gddr5", "gddr6", "hbm2", "hbm3".
std::vector<std::string> dramPresetNames();

}  // namespace scgpu::memsys
