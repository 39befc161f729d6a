#include "loom/ananta/control_plane_wire.hpp"

#include <algorithm>

namespace loom::ananta {

namespace {

// Command kinds on the wire.
enum : std::uint8_t {
    kSetEndpoint = 1, kRemoveEndpoint, kWithdrawVip, kSetSnatRange, kSetTenantWeight, kSetDipHealth,
    kAddVm = 16, kSetNatRule, kSetSnatVip, kSnatGrant
};

class WireWriter {
public:
    void u8(std::uint8_t v) { b_.push_back(v); }
    void u16(std::uint16_t v) { put(v, 2); }
    void u32(std::uint32_t v) { put(v, 4); }
    void u64(std::uint64_t v) { put(v, 8); }
    void endpoint(const Endpoint& e) {
        u32(e.vip);
        u8(static_cast<std::uint8_t>(e.proto));
        u16(e.port);
    }
    std::vector<std::uint8_t>& bytes() { return b_; }

private:
    void put(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) b_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    std::vector<std::uint8_t> b_;
};

class WireReader {
public:
    explicit WireReader(const std::vector<std::uint8_t>& b) : b_(b) {}
    std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
    std::uint64_t u64() { return get(8); }
    Endpoint endpoint() {
        Endpoint e;
        e.vip = u32();
        e.proto = static_cast<IpProto>(u8());
        e.port = u16();
        return e;
    }
    bool ok() const { return ok_ && at_ == b_.size(); }

private:
    std::uint64_t get(int n) {
        if (at_ + static_cast<std::size_t>(n) > b_.size()) {
            ok_ = false;
            return 0;
        }
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= std::uint64_t{b_[at_++]} << (8 * i);
        return v;
    }
    const std::vector<std::uint8_t>& b_;
    std::size_t at_ = 0;
    bool ok_ = true;
};

void write_command(WireWriter& w, const MuxCommand& command) {
    std::visit(
        [&](const auto& c) {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, SetEndpoint>) {
                w.u8(kSetEndpoint);
                w.u64(c.epoch);
                w.endpoint(c.endpoint);
                w.u32(c.tenant);
                w.u32(static_cast<std::uint32_t>(c.dips.size()));
                for (const WeightedDip& d : c.dips) {
                    w.u32(d.dip);
                    w.u16(d.port);
                    w.u32(d.host);
                    w.u32(d.weight);
                }
            } else if constexpr (std::is_same_v<C, RemoveEndpoint>) {
                w.u8(kRemoveEndpoint);
                w.u64(c.epoch);
                w.endpoint(c.endpoint);
            } else if constexpr (std::is_same_v<C, WithdrawVip>) {
                w.u8(kWithdrawVip);
                w.u64(c.epoch);
                w.u32(c.vip);
                w.u8(c.withdrawn ? 1 : 0);
            } else if constexpr (std::is_same_v<C, SetSnatRange>) {
                w.u8(kSetSnatRange);
                w.u64(c.epoch);
                w.u32(c.vip);
                w.u8(static_cast<std::uint8_t>(c.proto));
                w.u16(c.first_port);
                w.u16(c.count);
                w.u32(c.target.dip);
                w.u16(c.target.port);
                w.u32(c.target.host);
                w.u32(c.tenant);
                w.u8(c.remove ? 1 : 0);
            } else if constexpr (std::is_same_v<C, SetTenantWeight>) {
                w.u8(kSetTenantWeight);
                w.u64(c.epoch);
                w.u32(c.tenant);
                w.u64(static_cast<std::uint64_t>(c.weight));
            } else {
                w.u8(kSetDipHealth);
                w.u64(c.epoch);
                w.u32(c.dip);
                w.u8(c.healthy ? 1 : 0);
            }
        },
        command);
}

void write_command(WireWriter& w, const HostCommand& command) {
    std::visit(
        [&](const auto& c) {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, AddVm>) {
                w.u8(kAddVm);
                w.u64(c.epoch);
                w.u32(c.dip);
            } else if constexpr (std::is_same_v<C, SetNatRule>) {
                w.u8(kSetNatRule);
                w.u64(c.epoch);
                w.endpoint(c.endpoint);
                w.u32(c.dip);
                w.u16(c.dip_port);
                w.u8(c.remove ? 1 : 0);
            } else if constexpr (std::is_same_v<C, SetSnatVip>) {
                w.u8(kSetSnatVip);
                w.u64(c.epoch);
                w.u32(c.dip);
                w.u32(c.vip);
            } else {
                w.u8(kSnatGrant);
                w.u64(c.epoch);
                w.u32(c.dip);
                w.u32(c.vip);
                w.u16(c.first);
                w.u16(c.count);
            }
        },
        command);
}

std::vector<ControlMessage> cut(ControlType type, const std::vector<std::uint8_t>& bytes, std::uint64_t token,
                                std::uint32_t serial) {
    const auto parts = static_cast<std::uint16_t>(std::max<std::size_t>(1, (bytes.size() + kControlBytes - 1) / kControlBytes));
    std::vector<ControlMessage> out(parts);
    for (std::uint16_t p = 0; p < parts; ++p) {
        ControlMessage& m = out[p];
        m.type = type;
        m.part = p;
        m.parts = parts;
        m.serial = serial;
        m.token = token;
        const std::size_t from = std::size_t{p} * kControlBytes;
        const std::size_t n = std::min(kControlBytes, bytes.size() - from);
        m.length = static_cast<std::uint16_t>(n);
        std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(from), n, m.data.begin());
    }
    return out;
}

}  // namespace

std::vector<ControlMessage> command_parts(const MuxCommand& command, std::uint64_t token, std::uint32_t serial) {
    WireWriter w;
    write_command(w, command);
    return cut(ControlType::Mux, w.bytes(), token, serial);
}

std::vector<ControlMessage> command_parts(const HostCommand& command, std::uint64_t token, std::uint32_t serial) {
    WireWriter w;
    write_command(w, command);
    return cut(ControlType::Host, w.bytes(), token, serial);
}

bool read_command(ControlType type, const std::vector<std::uint8_t>& bytes, MuxCommand& mux, HostCommand& host) {
    WireReader r(bytes);
    const std::uint8_t kind = r.u8();
    const Epoch epoch = r.u64();
    if (type == ControlType::Mux) {
        switch (kind) {
            case kSetEndpoint: {
                SetEndpoint c{epoch, r.endpoint(), {}, 0};
                c.tenant = r.u32();
                const std::uint32_t n = r.u32();
                if (n > bytes.size()) return false;
                for (std::uint32_t i = 0; i < n; ++i) {
                    WeightedDip d;
                    d.dip = r.u32();
                    d.port = r.u16();
                    d.host = r.u32();
                    d.weight = r.u32();
                    c.dips.push_back(d);
                }
                mux = std::move(c);
                break;
            }
            case kRemoveEndpoint: mux = RemoveEndpoint{epoch, r.endpoint()}; break;
            case kWithdrawVip: {
                WithdrawVip c{epoch, r.u32(), true};
                c.withdrawn = r.u8() != 0;
                mux = c;
                break;
            }
            case kSetSnatRange: {
                SetSnatRange c;
                c.epoch = epoch;
                c.vip = r.u32();
                c.proto = static_cast<IpProto>(r.u8());
                c.first_port = r.u16();
                c.count = r.u16();
                c.target.dip = r.u32();
                c.target.port = r.u16();
                c.target.host = r.u32();
                c.tenant = r.u32();
                c.remove = r.u8() != 0;
                mux = c;
                break;
            }
            case kSetTenantWeight: {
                SetTenantWeight c{epoch, r.u32(), 1};
                c.weight = static_cast<std::int64_t>(r.u64());
                mux = c;
                break;
            }
            case kSetDipHealth: {
                SetDipHealth c{epoch, r.u32(), true};
                c.healthy = r.u8() != 0;
                mux = c;
                break;
            }
            default: return false;
        }
    } else if (type == ControlType::Host) {
        switch (kind) {
            case kAddVm: host = AddVm{epoch, r.u32()}; break;
            case kSetNatRule: {
                SetNatRule c{epoch, r.endpoint(), 0, 0, false};
                c.dip = r.u32();
                c.dip_port = r.u16();
                c.remove = r.u8() != 0;
                host = c;
                break;
            }
            case kSetSnatVip: {
                SetSnatVip c{epoch, r.u32(), 0};
                c.vip = r.u32();
                host = c;
                break;
            }
            case kSnatGrant: {
                SnatGrant c{epoch, r.u32(), 0, 0, 0};
                c.vip = r.u32();
                c.first = r.u16();
                c.count = r.u16();
                host = c;
                break;
            }
            default: return false;
        }
    } else {
        return false;
    }
    return r.ok();
}

ControlMessage ack_message(std::uint64_t token, const std::optional<CommandRejected>& rejected) {
    WireWriter w;
    w.u8(rejected ? 1 : 0);
    w.u64(rejected ? rejected->command_epoch : 0);
    w.u64(rejected ? rejected->highest_seen : 0);
    return cut(ControlType::Ack, w.bytes(), token, 0).front();
}

std::optional<CommandRejected> ack_rejection(const ControlMessage& m) {
    const std::vector<std::uint8_t> b(m.data.begin(), m.data.begin() + m.length);
    WireReader r(b);
    const bool rejected = r.u8() != 0;
    CommandRejected c;
    c.command_epoch = r.u64();
    c.highest_seen = r.u64();
    if (!rejected || !r.ok()) return std::nullopt;
    return c;
}

Epoch command_epoch(const MuxCommand& c) {
    return std::visit([](const auto& x) { return x.epoch; }, c);
}
Epoch command_epoch(const HostCommand& c) {
    return std::visit([](const auto& x) { return x.epoch; }, c);
}

std::optional<std::vector<std::uint8_t>> ControlAssembler::add(std::uint32_t from, const ControlMessage& m) {
    if (m.parts == 0 || m.part >= m.parts || m.length > kControlBytes) return std::nullopt;
    const auto key = std::make_pair(from, m.serial);
    if (done_.contains(key)) return std::nullopt;  // a duplicate of a command already complete
    if (m.parts == 1) {
        done_.insert(key);
        return std::vector<std::uint8_t>(m.data.begin(), m.data.begin() + m.length);
    }
    auto it = std::find_if(partial_.begin(), partial_.end(), [&](const auto& p) { return p.first == key; });
    if (it == partial_.end()) {
        Partial p;
        p.parts = m.parts;
        p.data.resize(m.parts);
        p.length.resize(m.parts, 0);
        p.got.resize(m.parts, false);
        partial_.emplace_back(key, std::move(p));
        it = partial_.end() - 1;
    }
    Partial& p = it->second;
    if (p.parts != m.parts || p.got[m.part]) return std::nullopt;  // a duplicate part
    p.got[m.part] = true;
    p.data[m.part] = m.data;
    p.length[m.part] = m.length;
    if (++p.have < p.parts) return std::nullopt;
    std::vector<std::uint8_t> bytes;
    for (std::uint16_t i = 0; i < p.parts; ++i)
        bytes.insert(bytes.end(), p.data[i].begin(), p.data[i].begin() + p.length[i]);
    partial_.erase(it);
    done_.insert(key);
    return bytes;
}

}  // namespace loom::ananta
