#include "runtime/nvtx_ranges.h"

#if KILN_HAVE_NVTX3
#include <nvtx3/nvToolsExt.h>
#endif

namespace kiln {

#if KILN_HAVE_NVTX3

namespace {

nvtxDomainHandle_t Domain() {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("kiln");
  return domain;
}

}  // namespace

NvtxRanges::NvtxRanges(const std::vector<std::string>& names) {
  for (const std::string& name : names) handles_.push_back(nvtxDomainRegisterStringA(Domain(), name.c_str()));
}

void NvtxRanges::Push(size_t i) const {
  nvtxEventAttributes_t attributes = {};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = static_cast<nvtxStringHandle_t>(const_cast<void*>(handles_[i]));
  nvtxDomainRangePushEx(Domain(), &attributes);
}

void NvtxRanges::Pop() const { nvtxDomainRangePop(Domain()); }

bool NvtxRanges::Enabled() { return true; }

#else

NvtxRanges::NvtxRanges(const std::vector<std::string>& names) : handles_(names.size(), nullptr) {}
void NvtxRanges::Push(size_t) const {}
void NvtxRanges::Pop() const {}
bool NvtxRanges::Enabled() { return false; }

#endif

}  // namespace kiln
