// The manager's commands to Muxes and Host Agents, and their acknowledgements, as fixed-size packet payloads of
// the control links (like the Paxos messages: no model-wide table). A command is written into bytes and cut
// into parts of kControlBytes; the receiver applies it once every part has arrived. An acknowledgement says
// whether the command was applied or rejected for an older epoch (with the highest epoch the receiver holds).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <variant>
#include <vector>

#include "loom/ananta/epoch.hpp"
#include "loom/ananta/host_agent.hpp"
#include "loom/ananta/mux.hpp"

namespace loom::ananta {

inline constexpr std::size_t kControlBytes = 64;

enum class ControlType : std::uint8_t { Mux = 1, Host = 2, Ack = 3 };  // a command to a Mux, to a Host Agent, an ack

struct ControlMessage {
    ControlType type = ControlType::Ack;
    std::uint16_t part = 0;    // this part's number
    std::uint16_t parts = 1;   // parts of the command
    std::uint16_t length = 0;  // bytes of `data` used
    std::uint32_t serial = 0;  // the issuing replica's number for the command (parts of one command share it)
    std::uint64_t token = 0;   // the manager's acknowledgement token
    std::array<std::uint8_t, kControlBytes> data{};
};

// The parts carrying `command` (at least one).
std::vector<ControlMessage> command_parts(const MuxCommand& command, std::uint64_t token, std::uint32_t serial);
std::vector<ControlMessage> command_parts(const HostCommand& command, std::uint64_t token, std::uint32_t serial);
// Reads the command the bytes of all parts (in order) describe into `mux` (type Mux) or `host` (type Host);
// false when malformed.
bool read_command(ControlType type, const std::vector<std::uint8_t>& bytes, MuxCommand& mux, HostCommand& host);

// An acknowledgement of command `token`: applied, or rejected with the epochs.
ControlMessage ack_message(std::uint64_t token, const std::optional<CommandRejected>& rejected);
std::optional<CommandRejected> ack_rejection(const ControlMessage& m);

// The epoch a command carries.
Epoch command_epoch(const MuxCommand& c);
Epoch command_epoch(const HostCommand& c);

// Reassembles commands from their parts, per issuer, in whatever order the parts arrive; a duplicate of a
// part or of a complete command is ignored, and a command with a part lost is never applied (the manager's
// acknowledgement wait ends when it counts the receiver down).
class ControlAssembler {
public:
    // The bytes of a complete command, once `m` completes it.
    std::optional<std::vector<std::uint8_t>> add(std::uint32_t from, const ControlMessage& m);
    std::size_t incomplete() const { return partial_.size(); }

private:
    struct Partial {
        std::uint16_t parts = 0;
        std::uint16_t have = 0;
        std::vector<std::array<std::uint8_t, kControlBytes>> data;
        std::vector<std::uint16_t> length;
        std::vector<bool> got;
    };
    std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, Partial>> partial_;  // (from, serial)
    std::set<std::pair<std::uint32_t, std::uint32_t>> done_;  // complete commands (duplicates are ignored)
};

}  // namespace loom::ananta
