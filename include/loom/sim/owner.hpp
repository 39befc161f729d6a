// A check that a component's mutable state (a pool, a table) is touched only by the component that owns it:
// what lets a model be cut across processes. Compiled into debug builds; free of cost in release builds.
#pragma once


// 1: Owner::check compares the component whose event is running with the owner (debug builds by default).
// A translation unit may define it before including this header (tests of the check do).
#ifndef LOOM_OWNERSHIP_CHECKS
#ifdef NDEBUG
#define LOOM_OWNERSHIP_CHECKS 0
#else
#define LOOM_OWNERSHIP_CHECKS 1
#endif
#endif

namespace loom::sim {

class Context;

// A member of the state it guards (8 bytes in every build, so layouts agree). Unbound, it checks nothing;
// bound to a component's Context, check() throws InternalError naming both components when an event handler,
// init() or finish() of another component is running. Outside them (building, the model's end-of-run checks)
// every access is allowed: the builder and the model wire and read everything by design.
class Owner {
public:
    void bind(const Context& owner) { owner_ = &owner; }
    const Context* owner() const { return owner_; }
    // A template on the switch, so that translation units compiled with and without checks instantiate two
    // distinct functions (no one-definition-rule clash in a program that mixes them).
    template <bool kOn = (LOOM_OWNERSHIP_CHECKS != 0)>
    void check([[maybe_unused]] const char* what) const {
        if constexpr (kOn) {
            if (owner_ != nullptr) verify(what);
        }
    }

private:
    void verify(const char* what) const;
    const Context* owner_ = nullptr;
};

}  // namespace loom::sim
