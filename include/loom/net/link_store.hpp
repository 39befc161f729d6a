// The storage of what one link (an output port and the line behind it) carries: slots of records that the
// sending component fills and the receiving component empties, so that a packet's payload is owned by the link
// that carries it and never by a pool the components share (DESIGN principle 5). The event that announces an
// entry carries its 32-bit handle (the slot's index). The receiver copies (or swaps) what it needs into its own
// storage and releases the slot, which keeps its capacity (e.g. a vector's) for the sender's next entry; slots
// are reused most recently released first. Entries may be taken in any order (a link whose schedule collides
// delivers out of order).
// Partitioning: a link whose ends are on different processes ships each entry with the event that names it, and
// the receiver's releases back at window boundaries.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/sim/owner.hpp"

namespace loom::net {

template <class T>
class LinkStore {
public:
    LinkStore() = default;
    LinkStore(const LinkStore&) = delete;
    LinkStore& operator=(const LinkStore&) = delete;
    LinkStore(LinkStore&&) noexcept = default;
    LinkStore& operator=(LinkStore&&) noexcept = default;

    // The sending and receiving components: in a debug build, push() from any other component's handler, and
    // at()/release() from any but the receiver's, throw InternalError naming both (sim::Owner).
    void bind(const sim::Context& sender, const sim::Context& receiver) {
        sender_.bind(sender);
        receiver_.bind(receiver);
    }
    const sim::Owner& sender() const { return sender_; }
    const sim::Owner& receiver() const { return receiver_; }

    // A free slot to fill in place; its handle in `handle`.
    [[gnu::always_inline]] T& push(std::uint32_t& handle) {
        sender_.check("a link's storage");
        if (free_.empty()) {
            handle = static_cast<std::uint32_t>(slots_.size());
            slots_.emplace_back();
        } else {
            handle = free_.back();
            free_.pop_back();
        }
        ++pushed_;
        return slots_[handle];
    }
    // The entry of `handle` (the receiver's).
    T& at(std::uint32_t handle) {
        receiver_.check("a link's storage");
        LOOM_DEBUG_ASSERT(handle < slots_.size(), "a link's storage read at an invalid handle");
        return slots_[handle];
    }
    void release(std::uint32_t handle) {
        receiver_.check("a link's storage");
        LOOM_DEBUG_ASSERT(handle < slots_.size(), "a link's storage released at an invalid handle");
        free_.push_back(handle);
    }

    // Entries pushed and not yet released.
    std::uint64_t live() const { return slots_.size() - free_.size(); }
    std::uint64_t pushed() const { return pushed_; }
    std::size_t capacity() const { return slots_.size(); }

private:
    std::vector<T> slots_;
    std::vector<std::uint32_t> free_;
    std::uint64_t pushed_ = 0;
    sim::Owner sender_, receiver_;
};

}  // namespace loom::net
