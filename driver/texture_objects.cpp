#include "driver/texture_objects.h"

#include <cstring>

namespace scgpu::driver {

DevicePtr createTextureObject(Runtime& rt, const sm::TextureDesc& d) {
  if (d.magic != sm::kTextureMagic && d.magic != sm::kSurfaceMagic)
    throw RuntimeError(Error::InvalidValue, "texture object: the descriptor is neither a texture nor a surface");
  const std::string why = sm::TextureDesc::validate(d);
  if (!why.empty()) throw RuntimeError(Error::InvalidValue, "texture object: " + why);
  std::uint8_t bytes[sm::kTexDescBytes];
  d.encode(bytes);
  const DevicePtr h = rt.malloc(sm::kTexDescBytes);  // 256-byte aligned, as every allocation
  rt.memcpyHtoD(h, bytes, sizeof bytes);
  return h;
}

void destroyTextureObject(Runtime& rt, DevicePtr handle) {
  const std::uint32_t dead = 0;
  rt.memcpyHtoD(handle, &dead, sizeof dead);
  rt.free(handle);
}

}  // namespace scgpu::driver
