// One direction of a fabric channel (flits, or the credits flowing back): a FIFO delay line of timestamped
// 32-bit entries plus the wake-up it sends the receiver, so a busy channel costs no kernel event per flit; a flit
// line also holds the records of the packets whose head flits it carries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"
#include "loom/fabric/fabric_packet.hpp"
#include "loom/fabric/flit.hpp"
#include "loom/net/clocked_link.hpp"
#include "loom/sim/channel.hpp"
#include "loom/sim/owner.hpp"

namespace loom::fabric {

// The chunks the lines' rings are made of: one cache line each, seven 8-byte entries and the next chunk's address.
// One pool serves every line of a run (of a process, once runs are partitioned): a line holds the chunks of what is
// in flight on it now, taking one when a push finds its last chunk full and giving one back when a pop empties a
// chunk, so the run's ring memory follows the flits and credits in flight rather than the sum of every line's peak
// (on the 16,512-terminal network: 5.9 MB of entries in flight at 3,000 cycles against 43.6 MB of per-line peaks).
// The pool is an allocator, not model state: what a line holds, and so every output, is the same whichever chunks
// it is given. Free chunks are reused most recently freed first (warm in the cache); memory is returned only when
// the pool is destroyed.
class RingPool {
public:
    static constexpr std::uint32_t kEntries = 7;  // per chunk: 7 x 8 bytes and the link fill 64
    struct alignas(64) Chunk {
        std::uint64_t entry[kEntries];
        Chunk* next;
    };
    static_assert(sizeof(Chunk) == 64, "a ring chunk is one cache line");

    RingPool() = default;
    RingPool(const RingPool&) = delete;
    RingPool& operator=(const RingPool&) = delete;
    ~RingPool();

    [[gnu::always_inline]] Chunk* take() {
        if (free_ == nullptr) [[unlikely]] refill();
        Chunk* c = free_;
        free_ = c->next;
        return c;
    }
    [[gnu::always_inline]] void give(Chunk* c) {
        c->next = free_;
        free_ = c;
    }
    // Whether entry pointer `p` is one past a chunk's last entry (it points at the chunk's link).
    static bool at_end(const std::uint64_t* p) {
        return (reinterpret_cast<std::uintptr_t>(p) & (sizeof(Chunk) - 1)) == kEntries * sizeof(std::uint64_t);
    }
    // The chunk holding entry `p`.
    static Chunk* chunk_of(const std::uint64_t* p) {
        return reinterpret_cast<Chunk*>(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{sizeof(Chunk) - 1});
    }
    // A ring of `size` entries from `front` (the oldest) to `back` (one past the newest), both nullptr when empty:
    // appends `e`, taking a chunk when the last one is full (the caller then counts the entry).
    [[gnu::always_inline]] void push_back(std::uint64_t*& front, std::uint64_t*& back, std::uint32_t size,
                                          std::uint64_t e) {
        if (size == 0) {
            back = take()->entry;
            front = back;
        } else if (at_end(back)) {
            Chunk* c = take();
            chunk_of(back - 1)->next = c;
            back = c->entry;
        }
        *back++ = e;
    }
    // Drops the front entry of a ring that holds `left` entries after it, giving back the chunk it emptied.
    [[gnu::always_inline]] void pop_front(std::uint64_t*& front, std::uint64_t*& back, std::uint32_t left) {
        ++front;
        if (left == 0) {
            give(chunk_of(front - 1));
            front = back = nullptr;
        } else if (at_end(front)) {
            Chunk* c = chunk_of(front - 1);
            front = c->next->entry;
            give(c);
        }
    }
    // A chunk's handle (below 2^26, Flit::kMaxPackets: a head flit names its packet's record by it) and back.
    static std::uint32_t handle_of(const Chunk* c) {
        const auto a = reinterpret_cast<std::uintptr_t>(c);
        const auto* slab = reinterpret_cast<const Chunk*>(a & ~std::uintptr_t{kSlabBytes - 1});
        return static_cast<std::uint32_t>(slab->entry[0] << kSlabBits) | static_cast<std::uint32_t>(c - slab);
    }
    Chunk* at(std::uint32_t handle) const { return slabs_[handle >> kSlabBits] + (handle & (kSlabChunks - 1)); }
    // Chunks that can be handed out (the most the lines held at once, rounded up to a slab).
    std::size_t chunks() const { return slabs_.size() * (kSlabChunks - 1); }
    // Chunks free now (walks the free list: for checks and tests).
    std::size_t free_chunks() const {
        std::size_t n = 0;
        for (const Chunk* c = free_; c != nullptr; c = c->next) ++n;
        return n;
    }
    // The component that reads and releases the packet records (in a fabric run the routers' and terminals'
    // clock, whose ticks read them; a partitioned run has a pool per process): in a debug build,
    // FlitLink::record()/release_record() from any other component's handler throw InternalError naming both
    // (sim::Owner). Kept here rather than in every line's header, so that a header is 24 bytes.
    void bind_reader(const sim::Context& reader) { reader_.bind(reader); }
    void check_reader() const { reader_.check("a line's packet records"); }

    // 2 MiB per allocation, aligned to its size: few allocations, little left over. Its first chunk holds the
    // slab's number (handle_of), the others are handed out. With 64 KiB slabs (a few hundred on the reference
    // run) reading a slab's number at each record's push missed the cache about once per packet-hop; a run now
    // has a few slabs, whose first lines stay cached.
    static constexpr std::uint32_t kSlabBits = 15;
    static constexpr std::size_t kSlabChunks = std::size_t{1} << kSlabBits;

private:
    static constexpr std::size_t kSlabBytes = kSlabChunks * 64;
    [[gnu::noinline, gnu::cold]] void refill();
    Chunk* free_ = nullptr;
    std::vector<Chunk*> slabs_;
    sim::Owner reader_;
};

// The sender pushes (arrival cycle, payload) entries in non-decreasing arrival order, each arrival at least the
// channel's latency after the push (the lookahead); the receiver pops them at or after their arrival. The wake
// link (sender's OutPort -> receiver's InPort, same minimum latency) carries one event, timed at the entry's
// arrival, for every push onto an empty line. The wake-ups of a run travel on one any-to-any sim channel
// ("fabric.wake": an endpoint per router and terminal, each line naming its receiver and what to wake), so a
// router has one port instead of four per channel; the channel's minimum latency is the shortest line's. Contract of the receiver: whenever it needs an entry that is in
// the line it arms its own timer for the front entry's arrival; when the line is empty it relies on the next
// push's wake event. So a channel busy with back-to-back flits costs ring writes and reads, not kernel events,
// and the kernel queue holds a few events per active component instead of one per flit in flight.
// Partitioning: a line whose ends are on different processes ships its pushes at window boundaries (every
// entry arrives at least one latency after its push, which is the lookahead).
// Entries keep the arrival cycle modulo 2^32 (8 bytes each): an entry is never in flight for 2^31 cycles. The ring
// is a chain of RingPool chunks holding what is in flight now; a line that empties gives its last chunk back.
// Records: the line holds the packet records it carries (DESIGN principle 5), each in a pool chunk: the sender
// stores it (push_record) and names the chunk's handle in the head flit's packet field; the receiver reads and
// updates the record there from the head's arrival on and gives the chunk back when it is done with it (the head
// leaves the router, or the tail reaches the terminal). A record written at a hop takes the chunk freed last, which
// is in the cache (per-line record slots were written cold).
// 24 bytes, so that a router port's output channel and the two lines it pushes (flits out, credits back for the
// flits arriving on the port) are one cache line (PortOut). The pool, the sender's wake endpoint and the records'
// owner check are not kept in the header: the ends pass them (a router or terminal holds both; the pool holds the
// check). The sender's push and the receiver's pop touch the header and one ring chunk (and the pool's free list
// when a chunk is taken or given back), a head flit one record chunk more.
class FlitLink {
public:
    FlitLink() = default;
    FlitLink(const FlitLink&) = delete;
    FlitLink& operator=(const FlitLink&) = delete;

    FlitLink(FlitLink&&) = delete;
    // The ring's chunks and the records go back with the pool (it outlives its lines, or both end together).
    ~FlitLink() = default;

    // The receiver's endpoint index on the wake channel (below 2^24) and the argument it is woken with (below 256:
    // a port's line, at most 64 ports).
    void bind(std::uint32_t to, std::uint32_t arg) {
        LOOM_ASSERT(to < (std::uint32_t{1} << 24) && arg < 256, "a line's wake-up names at most 2^24 endpoints");
        wake_to_ = to << 8 | arg;
    }

    // Every call that touches the ring or the records takes the run's pool (the same one for the line's life); a
    // push takes the sender's endpoint on the wake channel (always the same one for a line).
    // `delay`: from now to `arrival` (the wake event's delay when the line is empty).
    [[gnu::always_inline]] void push(RingPool& pool, sim::ChannelPort& wake, std::int64_t arrival,
                                     std::uint32_t payload, Time delay) {
        push_lazy(pool, wake, arrival, payload, [delay] { return delay; });
    }
    // The same, `delay()` giving that delay: called only when the line is empty (a wake-up is sent), so a busy
    // line's push costs no clock-edge conversion.
    template <class Delay>
    [[gnu::always_inline]] void push_lazy(RingPool& pool, sim::ChannelPort& wake, std::int64_t arrival,
                                          std::uint32_t payload, Delay&& delay) {
        if (size_ == 0) wake.send(wake_to_ >> 8, wake_to_ & 0xffu, delay());
        pool.push_back(front_, back_, size_, (std::uint64_t{payload} << 32) | static_cast<std::uint32_t>(arrival));
        ++size_;
    }
    bool empty() const { return size_ == 0; }
    std::uint32_t size() const { return size_; }
    // Whether the front entry has arrived by `cycle`.
    bool ready(std::int64_t cycle) const {
        return size_ != 0 && static_cast<std::int32_t>(static_cast<std::uint32_t>(cycle) -
                                                       static_cast<std::uint32_t>(*front_)) >= 0;
    }
    // The front entry's arrival cycle, given the current cycle. Requires !empty().
    std::int64_t front_arrival(std::int64_t now) const { return arrival_of(*front_, now); }
    // The front entry's arrival cycle modulo 2^32. Requires !empty().
    std::uint32_t front_arrival32() const { return static_cast<std::uint32_t>(*front_); }
    std::uint32_t front_payload() const { return static_cast<std::uint32_t>(*front_ >> 32); }
    // The last entry's arrival cycle. Requires !empty().
    std::int64_t back_arrival(std::int64_t now) const { return arrival_of(back_[-1], now); }
    std::uint32_t pop(RingPool& pool) {
        const std::uint64_t e = *front_;
        pool.pop_front(front_, back_, --size_);
        return static_cast<std::uint32_t>(e >> 32);
    }
    // Calls f(payload, arrival cycle) for the entries in flight, oldest first, until it returns true.
    template <class F>
    void scan(std::int64_t now, F&& f) const {
        const std::uint64_t* p = front_;
        for (std::uint32_t k = 0; k < size_; ++k, ++p) {
            if (at_end(p)) p = chunk_of(p - 1)->next->entry;
            if (f(static_cast<std::uint32_t>(*p >> 32), arrival_of(*p, now))) return;
        }
    }
    // Payloads in flight, oldest first (checks and statistics).
    template <class F>
    void for_each_payload(F&& f) const {
        scan(0, [&](std::uint32_t payload, std::int64_t) {
            f(payload);
            return false;
        });
    }

    // Stores the record of a packet whose head the sender pushes next, in a chunk of the pool; returns its handle
    // (below Flit::kMaxPackets), which the head flit names.
    [[gnu::always_inline]] std::uint32_t push_record(RingPool& pool, const FabricRecord& r) {
        RingPool::Chunk* c = pool.take();
        new (c) FabricRecord(r);
        return RingPool::handle_of(c);
    }
    // The record of `handle` (the receiver's: RingPool::bind_reader).
    FabricRecord& record(const RingPool& pool, std::uint32_t handle) {
        pool.check_reader();
        LOOM_DEBUG_ASSERT(handle < Flit::kMaxPackets, "a line's record read at an invalid handle");
        return *std::launder(reinterpret_cast<FabricRecord*>(pool.at(handle)));
    }
    // Asks the cache for the record of `handle` ahead of reading it (no access: no owner check).
    static void prefetch_record(const RingPool& pool, std::uint32_t handle) { __builtin_prefetch(pool.at(handle)); }
    // The receiver is done with the record: its chunk goes back to the pool.
    void release_record(RingPool& pool, std::uint32_t handle) {
        pool.check_reader();
        pool.give(pool.at(handle));
    }

private:
    static std::int64_t arrival_of(std::uint64_t e, std::int64_t now) {
        return now + static_cast<std::int32_t>(static_cast<std::uint32_t>(e) - static_cast<std::uint32_t>(now));
    }
    static bool at_end(const std::uint64_t* p) { return RingPool::at_end(p); }
    static RingPool::Chunk* chunk_of(const std::uint64_t* p) { return RingPool::chunk_of(p); }
    // The ring: entries payload << 32 | arrival mod 2^32 from front_ (the oldest) to back_ (one past the newest),
    // in chunks linked oldest to newest; both nullptr when the line is empty.
    std::uint64_t* front_ = nullptr;
    std::uint64_t* back_ = nullptr;
    std::uint32_t size_ = 0;
    std::uint32_t wake_to_ = 0;  // the receiver's endpoint << 8 | the argument it is woken with
};
static_assert(sizeof(FlitLink) == 24, "a port's channel and its two line headers fill a cache line");

// What a router port sends on, in one cache line: its output channel (the flits' timing; the credits the router
// returns for the flits arriving on the port ride beside them on it), the flit line it pushes onto that channel,
// and the credit line it returns those credits on. Each line's header is kept at its sender, so forwarding a flit
// touches the sending router's two port records (the output's, the input's) and no header of a neighbour's; the
// receiver finds the lines it reads by their sender's record (Router::attach_input, attach_output). With both
// directions of a channel between the same two ports (a Dragonfly's), the two lines a port reads (the flits
// arriving on it, the credits for its output) are in one cache line too: the neighbour's record. A terminal has
// one as well: its injection line is `flits` (`link` and `credits` unused); the router's terminal port pushes the
// ejection line and the terminal's credits, both read by the terminal, in one line.
struct alignas(64) PortOut {
    net::ClockedLink link;  // the output channel (latency at most 10^6 cycles, a config bound)
    FlitLink flits;         // flits leaving
    FlitLink credits;       // credits returned for the flits arriving on this port
};
static_assert(sizeof(PortOut) == 64, "a port's output channel and its two lines are one cache line");
static_assert(sizeof(FabricRecord) == sizeof(RingPool::Chunk) && alignof(FabricRecord) == alignof(RingPool::Chunk),
              "a packet's record fills a pool chunk");

}  // namespace loom::fabric
