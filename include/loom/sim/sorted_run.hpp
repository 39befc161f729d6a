// The sorted run of a bucketed event queue (calendar, radix, two-level): the events a queue has taken out of
// its ring and sorted, handed out front to back in (time, key) order. An event pushed for a time the run
// already covers goes into it in order (insert). The queues fill the run through a raw pointer (fill, grow,
// filled): their load loops write one event per step and must not reload a vector's members after each store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/sim/event.hpp"

namespace loom::sim {

class SortedRun {
public:
    static constexpr std::size_t kPad = 2;  // readable events past the room (see limit())

    SortedRun() = default;
    SortedRun(const SortedRun&) = delete;
    SortedRun& operator=(const SortedRun&) = delete;
    SortedRun(SortedRun&& o) noexcept { take(o); }
    SortedRun& operator=(SortedRun&& o) noexcept {
        if (this != &o) take(o);
        return *this;
    }

    bool exhausted() const { return cur_ == end_; }
    const Event& front() const { return *cur_; }
    void pop_front() {
        LOOM_DEBUG_ASSERT(cur_ != end_, "SortedRun::pop_front on an exhausted run");
        ++cur_;
    }
    // The k-th event after the front, or nullptr past the run's end.
    const Event* peek(std::size_t k) const { return k < remaining() ? cur_ + k : nullptr; }
    std::size_t remaining() const { return static_cast<std::size_t>(end_ - cur_); }  // events after the popped ones
    // Events loaded since the last fill, popped ones included.
    std::size_t length() const { return static_cast<std::size_t>(end_ - buf_.data()); }
    // The run as two pointers, for the kernel's run loop: the front and one past the last event. Valid until
    // the next insert, fill, grow or release (an insert may move the events). While the run is not exhausted,
    // the kPad events at limit() and after may be read (stale or zeroed events: their targets are slots that
    // exist whenever any event does), so a loop can look two events ahead without testing for the end.
    const Event* cursor() const { return cur_; }
    const Event* limit() const { return end_; }
    template <class F>
    void for_each(F&& f) const {
        for (const Event* e = cur_; e != end_; ++e) f(*e);
    }

    // Inserts `e` after every event of the run that is not after it (the run stays sorted).
    void insert(const Event& e);
    // The same, for a run that is short or that `e` lands near the end of: it walks back from the end,
    // moving the events after `e` one place by one (no search, no memmove call).
    void insert_from_back(const Event& e) {
        if (cur_ == end_) {
            cur_ = end_ = buf_.data();
        } else if (end_ == room_end()) [[unlikely]] {
            make_room();
        }
        if (end_ == room_end()) [[unlikely]] grow();
        Event* const first = cur_;
        Event* at = end_;
        // Times mostly differ: the key decides only on a tie.
        const std::int64_t t = e.time;
        while (at != first) {
            const std::int64_t prev = at[-1].time;
            if (prev <= t) [[unlikely]] {
                if (prev < t || at[-1].key < e.key) break;
            }
            *at = at[-1];
            --at;
        }
        *at = e;
        ++end_;
    }

    // insert_from_back's common case, for a queue's inlined push: inserts the event and returns true when the
    // buffer has room at the back; otherwise changes nothing and returns false, and the caller calls
    // insert_from_back (which slides the run down or grows the buffer). An empty run is not restarted at the
    // buffer's front here: it goes on from where it ended until its back reaches the room's end. The pop order
    // and the buffer's capacity are the same as with insert_from_back alone (the buffer grows only when the
    // run's events fill its room, either way).
    [[gnu::always_inline]] bool try_insert_from_back(std::int64_t t, std::uint64_t key, std::uint32_t target,
                                                     std::uint32_t arg) {
        Event* at = end_;
        if (at == cap_) [[unlikely]] return false;
        Event* const first = cur_;
        while (at != first) {
            const std::int64_t prev = at[-1].time;
            if (prev <= t) [[unlikely]] {
                if (prev < t || at[-1].key < key) break;
            }
            *at = at[-1];
            --at;
        }
        end_ = end_ + 1;
        at->time = t;
        at->key = key;
        at->target = target;
        asm("");  // two 32-bit stores, not a vector pair (see RadixQueue::put)
        at->arg = arg;
        return true;
    }

    // The other common case of a queue's push into a run it pops from: an event before the run's front (a
    // handler's send for its own time, ahead of the run's later events) goes into the popped slot before the
    // front, moving nothing. Returns false, changing nothing, when the run is empty, the event is not before
    // its front or no slot precedes the front. The slot may hold the event being handled, read in place:
    // a handler reads what it needs before it sends (HandlerFn), as a slide of the run (make_room) requires too.
    [[gnu::always_inline]] bool try_insert_front(std::int64_t t, std::uint64_t key, std::uint32_t target,
                                                 std::uint32_t arg) {
        Event* const first = cur_;
        if (first == end_ || first == buf_.data()) return false;
        if (t > first->time || (t == first->time && key > first->key)) return false;
        Event* const at = first - 1;
        cur_ = at;
        at->time = t;
        at->key = key;
        at->target = target;
        asm("");  // two 32-bit stores, as in try_insert_from_back
        at->arg = arg;
        return true;
    }

    // Loading: fill() empties the run and returns room for at least `n` events; grow() doubles the room
    // (returning the moved buffer; the events written so far and the run's positions are kept); filled(n)
    // makes the first n events written the run. The buffer only grows (value-initialized once; reused for
    // free) until release().
    Event* fill(std::size_t n) {
        if (room() < n) resize(n);
        cur_ = end_ = buf_.data();
        return buf_.data();
    }
    std::size_t room() const { return static_cast<std::size_t>(cap_ - buf_.data()); }
    Event* grow();  // out of line, like resize
    void filled(std::size_t n) {
        LOOM_DEBUG_ASSERT(n <= room(), "SortedRun::filled past the room");
        cur_ = buf_.data();
        end_ = cur_ + n;
    }

    // Writes kSentinel at limit() (for a queue whose readers test the time before the end, see kSentinel); the
    // run must have a buffer. Valid until limit() moves (the next insert, fill, grow or release).
    void mark_end() { *end_ = kSentinel; }
    // An event after every other (time INT64_MAX, the greatest key) for slot 0, which exists whenever any event
    // does: a reader whose time limit is below INT64_MAX stops at it without testing for limit().
    static constexpr Event kSentinel{INT64_MAX, UINT64_MAX, 0, 0};

    void clear() { cur_ = end_ = buf_.data(); }
    // Drops the buffer too (a queue rebuilding for a new tuning lets it grow again from what that needs).
    void release() {
        buf_ = std::vector<Event>();
        cur_ = end_ = cap_ = buf_.data();
    }
    std::size_t bytes_held() const { return buf_.capacity() * sizeof(Event); }

private:
    void make_room();  // full: slides the run down over the popped events, if any
    void take(SortedRun& o) {
        const std::ptrdiff_t pos = o.cur_ - o.buf_.data(), n = o.end_ - o.buf_.data();
        const std::ptrdiff_t room = o.cap_ - o.buf_.data();
        buf_ = std::move(o.buf_);
        cur_ = buf_.data() + pos;
        end_ = buf_.data() + n;
        cap_ = buf_.data() + room;
        o.buf_ = std::vector<Event>();
        o.cur_ = o.end_ = o.cap_ = o.buf_.data();
    }

    static constexpr std::size_t kMinRoom = 64;  // first allocation: one small bucket's worth
    Event* room_end() const { return cap_; }
    void resize(std::size_t room);  // out of line: keeps the inlined insert's slow path to a call

    std::vector<Event> buf_;  // the run is [cur_, end_), inside buf_'s first room() events; kPad more follow
    Event* cur_ = nullptr;
    Event* end_ = nullptr;
    Event* cap_ = nullptr;  // buf_.data() + room()
};

}  // namespace loom::sim
