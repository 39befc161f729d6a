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
    // (sim::Owner). Kept here rather than in every line's sender end, so that it is 16 bytes.
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
// is a chain of RingPool chunks holding what is in flight now, and always at least one chunk (the one the next
// entry goes into).
// Two ends, no shared header: the sender's end (FlitLink, in its port record) knows where the next entry goes, the
// receiver's (LineReader, in the receiver's own state) where the front entry is. Neither reads the other's: a
// slot not yet written holds kFree, and a reader that pops the last entry marks the slot after it kWaiting (or, at
// a chunk's end, the chunk's link kWaitingLink), so that the push writing that slot finds the line empty there
// (and sends the wake-up) in the cache line it writes anyway. A pop so touches the ring chunk only, not a header
// in the sender's cache line, and a push its own record and the chunk.
// Records: the line holds the packet records it carries (DESIGN principle 5), each in a pool chunk: the sender
// stores it (push_record) and names the chunk's handle in the head flit's packet field; the receiver reads and
// updates the record there from the head's arrival on and gives the chunk back when it is done with it (the head
// leaves the router, or the tail reaches the terminal). A record written at a hop takes the chunk freed last, which
// is in the cache (per-line record slots were written cold).
namespace line_marks {
// A slot holds an entry iff it is below kWaiting: entries' payloads are below 2^32 - 1 (a flit's packet handle is
// below 2^26 - 1, RingPool::refill; a credit's payload is its VC).
inline constexpr std::uint64_t kWaiting = 0xffffffff00000000ull;  // the reader popped everything before this slot
inline constexpr std::uint64_t kFree = ~std::uint64_t{0};         // not written since the chunk was taken
inline RingPool::Chunk* const kWaitingLink = reinterpret_cast<RingPool::Chunk*>(std::uintptr_t{1});
}  // namespace line_marks

class LineReader;

// The sender's end: 16 bytes, so that a router port's output channel and the two lines it pushes (flits out,
// credits back for the flits arriving on the port) are one cache line (PortOut). The pool, the sender's wake
// endpoint and the records' owner check are not kept here: the ends pass them (a router or terminal holds both;
// the pool holds the check).
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
    // Takes the line's first chunk (empty, its reader waiting at its first slot) unless it has one: before the
    // first push, and before a LineReader attaches (which does it).
    void open(RingPool& pool) {
        if (back_ != nullptr) return;
        back_ = fresh(pool)->entry;
        *back_ = line_marks::kWaiting;
    }
    bool opened() const { return back_ != nullptr; }

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
        LOOM_DEBUG_ASSERT(back_ != nullptr, "a push onto a line not opened");
        LOOM_DEBUG_ASSERT(payload != 0xffffffffu, "a line's entry payload is below 2^32 - 1");
        bool empty;
        if (RingPool::at_end(back_)) [[unlikely]] {
            RingPool::Chunk* c = fresh(pool);
            RingPool::Chunk* full = RingPool::chunk_of(back_ - 1);
            empty = full->next == line_marks::kWaitingLink;
            full->next = c;
            back_ = c->entry;
        } else {
            empty = *back_ == line_marks::kWaiting;
        }
        if (empty) wake.send(wake_to_ >> 8, wake_to_ & 0xffu, delay());
        *back_++ = (std::uint64_t{payload} << 32) | static_cast<std::uint32_t>(arrival);
    }
    // The last entry's arrival cycle, given the current cycle. Requires an entry pushed at some time.
    std::int64_t back_arrival(std::int64_t now) const { return arrival_of(back_[-1], now); }

    // Stores the record of a packet whose head the sender pushes next, in a chunk of the pool; returns its handle
    // (below Flit::kMaxPackets), which the head flit names.
    [[gnu::always_inline]] static std::uint32_t push_record(RingPool& pool, const FabricRecord& r) {
        RingPool::Chunk* c = pool.take();
        new (c) FabricRecord(r);
        return RingPool::handle_of(c);
    }
    // The record of `handle` (the receiver's: RingPool::bind_reader).
    static FabricRecord& record(const RingPool& pool, std::uint32_t handle) {
        pool.check_reader();
        LOOM_DEBUG_ASSERT(handle < Flit::kMaxPackets, "a line's record read at an invalid handle");
        return *std::launder(reinterpret_cast<FabricRecord*>(pool.at(handle)));
    }
    // Asks the cache for the record of `handle` ahead of reading it (no access: no owner check).
    static void prefetch_record(const RingPool& pool, std::uint32_t handle) { __builtin_prefetch(pool.at(handle)); }
    // The receiver is done with the record: its chunk goes back to the pool.
    static void release_record(RingPool& pool, std::uint32_t handle) {
        pool.check_reader();
        pool.give(pool.at(handle));
    }

    static std::int64_t arrival_of(std::uint64_t e, std::int64_t now) {
        return now + static_cast<std::int32_t>(static_cast<std::uint32_t>(e) - static_cast<std::uint32_t>(now));
    }

private:
    friend class LineReader;
    // A chunk for the ring: every slot free, no next chunk.
    static RingPool::Chunk* fresh(RingPool& pool) {
        RingPool::Chunk* c = pool.take();
        for (std::uint64_t& e : c->entry) e = line_marks::kFree;
        c->next = nullptr;
        return c;
    }
    std::uint64_t* back_ = nullptr;  // where the next entry goes (a chunk's end when it is full)
    std::uint32_t wake_to_ = 0;      // the receiver's endpoint << 8 | the argument it is woken with
    std::uint32_t unused_ = 0;
};
static_assert(sizeof(FlitLink) == 16, "a port's channel and its two lines' sender ends fill a cache line");

// The receiver's end of a line: where its front entry is (8 bytes, kept with the receiver's own state: a router's
// PortIn for a flit line and an array of its block for a credit line, a terminal's object). Pops touch the ring's
// chunks only (see FlitLink).
class LineReader {
public:
    // Reads `line` from now on (before its first push; opens it).
    void attach(FlitLink& line, RingPool& pool) {
        line.open(pool);
        LOOM_ASSERT(*line.back_ == line_marks::kWaiting, "a line attached to its reader after a push");
        front_ = line.back_;
    }
    bool attached() const { return front_ != nullptr; }
    bool empty() const { return !is_entry(head()); }
    // Whether the front entry has arrived by `cycle`.
    bool ready(std::int64_t cycle) const {
        const std::uint64_t e = head();
        return is_entry(e) &&
               static_cast<std::int32_t>(static_cast<std::uint32_t>(cycle) - static_cast<std::uint32_t>(e)) >= 0;
    }
    // The front entry's arrival cycle, given the current cycle. Requires !empty().
    std::int64_t front_arrival(std::int64_t now) const { return FlitLink::arrival_of(head(), now); }
    // The front entry's arrival cycle modulo 2^32. Requires !empty().
    std::uint32_t front_arrival32() const { return static_cast<std::uint32_t>(head()); }
    std::uint32_t front_payload() const { return static_cast<std::uint32_t>(head() >> 32); }
    // Takes the front entry (requires !empty()), giving back a chunk it has read to its end; when it was the
    // last, marks the line empty for the next push (see FlitLink).
    std::uint32_t pop(RingPool& pool) {
        std::uint64_t next;
        return pop(pool, next);
    }
    // The same, `next` set to the new front: an entry (is_entry), else the line is now empty.
    [[gnu::always_inline]] std::uint32_t pop(RingPool& pool, std::uint64_t& next) {
        return pop_at(pool, front_, next);
    }
    // The pop of a reader whose front is `f` (moved on to the new front).
    [[gnu::always_inline]] static std::uint32_t pop_at(RingPool& pool, std::uint64_t*& front, std::uint64_t& next) {
        std::uint64_t* f = front;
        if (RingPool::at_end(f)) [[unlikely]] f = next_chunk(pool, f);  // woken at a full chunk's end
        const std::uint64_t e = *f++;
        LOOM_DEBUG_ASSERT(is_entry(e), "a pop from an empty line");
        if (RingPool::at_end(f)) [[unlikely]] {
            RingPool::Chunk* c = RingPool::chunk_of(f - 1);
            if (c->next == nullptr) {
                c->next = line_marks::kWaitingLink;
                next = line_marks::kWaiting;
            } else {
                f = next_chunk(pool, f);
                next = *f;
            }
        } else {
            next = *f;
            if (!is_entry(next)) *f = line_marks::kWaiting;
        }
        front = f;
        return static_cast<std::uint32_t>(e >> 32);
    }
    // The front slot's word: an entry (is_entry), else the line is empty.
    std::uint64_t front() const { return head(); }
    // Whether an entry has arrived by `cycle`.
    static bool arrived(std::uint64_t e, std::int64_t cycle) {
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(cycle) - static_cast<std::uint32_t>(e)) >= 0;
    }
    // Whether a slot's word (pop's `next`) is an entry, and the arrival cycle modulo 2^32 of one.
    static bool is_entry(std::uint64_t e) { return e < line_marks::kWaiting; }
    static std::uint32_t arrival32(std::uint64_t e) { return static_cast<std::uint32_t>(e); }
    // Entries in flight (walks them: checks and statistics).
    std::uint32_t size() const {
        std::uint32_t n = 0;
        scan(0, [&](std::uint32_t, std::int64_t) {
            ++n;
            return false;
        });
        return n;
    }
    // Calls f(payload, arrival cycle) for the entries in flight, oldest first, until it returns true.
    template <class F>
    void scan(std::int64_t now, F&& f) const {
        for (const std::uint64_t* p = front_;; ++p) {
            if (RingPool::at_end(p)) {
                const RingPool::Chunk* n = RingPool::chunk_of(p - 1)->next;
                if (n == nullptr || n == line_marks::kWaitingLink) return;
                p = n->entry;
            }
            if (!is_entry(*p)) return;
            if (f(static_cast<std::uint32_t>(*p >> 32), FlitLink::arrival_of(*p, now))) return;
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
    // Whether this reads `line`: the slot after its last entry is where the line pushes next (checks and tests).
    bool reads(const FlitLink& line) const {
        const std::uint64_t* p = front_;
        for (;; ++p) {
            if (RingPool::at_end(p)) {
                const RingPool::Chunk* n = RingPool::chunk_of(p - 1)->next;
                if (n == nullptr || n == line_marks::kWaitingLink) break;
                p = n->entry;
            }
            if (!is_entry(*p)) break;
        }
        return p == line.back_;
    }

private:
    // The front slot, past a full chunk's end.
    std::uint64_t head() const {
        if (RingPool::at_end(front_)) [[unlikely]] {
            const RingPool::Chunk* n = RingPool::chunk_of(front_ - 1)->next;
            return n == nullptr || n == line_marks::kWaitingLink ? line_marks::kWaiting : n->entry[0];
        }
        return *front_;
    }
    // Moves from the end of a chunk read to its end into the next one (written), giving the chunk back.
    static std::uint64_t* next_chunk(RingPool& pool, std::uint64_t* f) {
        RingPool::Chunk* c = RingPool::chunk_of(f - 1);
        std::uint64_t* n = c->next->entry;
        pool.give(c);
        return n;
    }
    std::uint64_t* front_ = nullptr;
};
static_assert(sizeof(LineReader) == 8);

// What a router port sends on, in one cache line: its output channel (the flits' timing; the credits the router
// returns for the flits arriving on the port ride beside them on it), the sender's end of the flit line it pushes
// onto that channel, and of the credit line it returns those credits on. Forwarding a flit touches the sending
// router's two port records (the output's, the input's) and no state of a neighbour's but the ring chunks it
// writes; the receiver reads the lines through its own LineReaders (Router::attach_input, attach_output). A
// terminal has one as well: its injection line is `flits` (`link` and `credits` unused); the router's terminal
// port pushes the ejection line and the terminal's credits.
struct alignas(64) PortOut {
    net::ClockedLink link;  // the output channel (latency at most 10^6 cycles, a config bound)
    FlitLink flits;         // flits leaving
    FlitLink credits;       // credits returned for the flits arriving on this port
};
static_assert(sizeof(PortOut) == 64, "a port's output channel and its two lines are one cache line");
static_assert(sizeof(FabricRecord) == sizeof(RingPool::Chunk) && alignof(FabricRecord) == alignof(RingPool::Chunk),
              "a packet's record fills a pool chunk");

}  // namespace loom::fabric
