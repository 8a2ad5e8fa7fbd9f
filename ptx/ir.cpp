#include "ptx/ir.h"

#include <cstring>

namespace scgpu::ptx {
namespace {

// Names as PTX spells them, without the dot, so that toString(typeFromName(x)) == x.
struct TypeName {
  Type type;
  const char* name;
};
constexpr TypeName kTypeNames[] = {
    {Type::B8, "b8"},       {Type::B16, "b16"},       {Type::B32, "b32"},     {Type::B64, "b64"},
    {Type::B128, "b128"},   {Type::U8, "u8"},         {Type::U16, "u16"},     {Type::U32, "u32"},
    {Type::U64, "u64"},     {Type::S8, "s8"},         {Type::S16, "s16"},     {Type::S32, "s32"},
    {Type::S64, "s64"},     {Type::F16, "f16"},       {Type::F16x2, "f16x2"}, {Type::BF16, "bf16"},
    {Type::BF16x2, "bf16x2"}, {Type::TF32, "tf32"},   {Type::F32, "f32"},     {Type::F64, "f64"},
    {Type::E4M3, "e4m3"},   {Type::E5M2, "e5m2"},     {Type::E4M3x2, "e4m3x2"}, {Type::E5M2x2, "e5m2x2"},
    {Type::Pred, "pred"},
};

struct SpaceName {
  StateSpace space;
  const char* name;
};
constexpr SpaceName kSpaceNames[] = {
    {StateSpace::Reg, "reg"},       {StateSpace::Sreg, "sreg"},     {StateSpace::Const, "const"},
    {StateSpace::Global, "global"}, {StateSpace::Local, "local"},   {StateSpace::Param, "param"},
    {StateSpace::Shared, "shared"}, {StateSpace::Tex, "tex"},       {StateSpace::Generic, "generic"},
};

}  // namespace

const char* toString(StateSpace s) {
  for (const auto& e : kSpaceNames)
    if (e.space == s) return e.name;
  return "none";
}

const char* toString(Type t) {
  for (const auto& e : kTypeNames)
    if (e.type == t) return e.name;
  return "none";
}

std::uint32_t sizeOf(Type t) {
  switch (t) {
    case Type::None: return 0;
    case Type::B8: case Type::U8: case Type::S8: case Type::E4M3: case Type::E5M2: case Type::Pred:
      return 1;
    case Type::B16: case Type::U16: case Type::S16: case Type::F16: case Type::BF16:
    case Type::E4M3x2: case Type::E5M2x2:
      return 2;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: case Type::F16x2:
    case Type::BF16x2: case Type::TF32:
      return 4;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64:
      return 8;
    case Type::B128:
      return 16;
  }
  return 0;
}

bool isFloat(Type t) {
  switch (t) {
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2: case Type::TF32:
    case Type::F32: case Type::F64: case Type::E4M3: case Type::E5M2: case Type::E4M3x2:
    case Type::E5M2x2:
      return true;
    default:
      return false;
  }
}

// Signed integer types only: float signedness is part of the format, not of the integer meaning.
bool isSigned(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}

Type typeFromName(const std::string& name) {
  for (const auto& e : kTypeNames)
    if (name == e.name) return e.type;
  return Type::None;
}

// Exact names only; "shared::cta" is the same window as "shared" (PTX ISA), while
// "shared::cluster" is a different one and is left to the caller (None).
StateSpace spaceFromName(const std::string& name) {
  if (name == "shared::cta") return StateSpace::Shared;
  for (const auto& e : kSpaceNames)
    if (name == e.name) return e.space;
  return StateSpace::None;
}

}  // namespace scgpu::ptx
