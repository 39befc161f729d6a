#include "loom/fabric/flit_link.hpp"

#include <new>

namespace loom::fabric {

RingPool::~RingPool() {
    for (Chunk* s : slabs_) ::operator delete(s, std::align_val_t{alignof(Chunk)});
}

// A slab of chunks, chained so that take() hands them out in address order.
void RingPool::refill() {
    auto* s = static_cast<Chunk*>(::operator new(kSlabChunks * sizeof(Chunk), std::align_val_t{alignof(Chunk)}));
    slabs_.push_back(s);
    for (std::size_t k = 0; k + 1 < kSlabChunks; ++k) s[k].next = &s[k + 1];
    s[kSlabChunks - 1].next = free_;
    free_ = s;
}

}  // namespace loom::fabric
