#include "loom/fabric/flit_link.hpp"

#include <new>

namespace loom::fabric {

RingPool::~RingPool() {
    for (Chunk* s : slabs_) ::operator delete(s, std::align_val_t{kSlabBytes});
}

// A slab of chunks aligned to its size, its first chunk holding its number, the others chained so that take()
// hands them out in address order.
void RingPool::refill() {
    // One slab short of 2^26 handles: a flit's packet handle stays below 2^26 - 1, so a line's entry payload is
    // never 2^32 - 1 (the lines' slot marks, FlitLink).
    LOOM_ASSERT(slabs_.size() + 1 < (std::size_t{Flit::kMaxPackets} >> kSlabBits),
                "the fabric's lines hold more than 2^26 chunks (4 GiB) of flits, credits and packet records");
    auto* s = static_cast<Chunk*>(::operator new(kSlabBytes, std::align_val_t{kSlabBytes}));
    s[0].entry[0] = slabs_.size();
    slabs_.push_back(s);
    for (std::size_t k = 1; k + 1 < kSlabChunks; ++k) s[k].next = &s[k + 1];
    s[kSlabChunks - 1].next = free_;
    free_ = &s[1];
}

}  // namespace loom::fabric
