// Epochs of configuration commands: every command to a Mux or Host Agent carries the epoch of the manager
// (primary) that issued it. A receiver remembers the highest epoch it has accepted and rejects an older one,
// which lets a stale primary learn that it has been replaced.
#pragma once

#include <cstdint>

namespace loom::ananta {

using Epoch = std::uint64_t;

// Equal epochs are accepted (one primary sends many commands); a higher one raises the bar.
class EpochGuard {
public:
    bool accept(Epoch e) {
        if (e < highest_) {
            ++rejected_;
            return false;
        }
        highest_ = e;
        return true;
    }
    Epoch highest() const { return highest_; }
    std::uint64_t rejected() const { return rejected_; }

private:
    Epoch highest_ = 0;
    std::uint64_t rejected_ = 0;
};

// A receiver's answer to a rejected command, reported back to the issuer.
struct CommandRejected {
    Epoch command_epoch = 0;
    Epoch highest_seen = 0;
    bool operator==(const CommandRejected&) const = default;
};

}  // namespace loom::ananta
