// Typed errors: every failure the library reports is one of these, carrying where it happened; `main` maps
// them to exit codes (1 internal, 2 bad input, 3 a model check failed). The library never calls exit().
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace loom {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
    virtual int exit_code() const { return 1; }
};

// A bug in Loom: an invariant that should have held did not.
class InternalError : public Error {
public:
    using Error::Error;
};

// Bad input: config, flags, files. Exit code 2.
class InputError : public Error {
public:
    using Error::Error;
    int exit_code() const override { return 2; }
};

// Errors found in a config; each message already names its JSON Pointer ("/phold/lps: expected ...").
// All of a config's errors are collected and thrown together.
class ConfigError : public InputError {
public:
    explicit ConfigError(std::vector<std::string> messages);
    const std::vector<std::string>& messages() const { return messages_; }

private:
    std::vector<std::string> messages_;
};

// A model check failed: schedule error, verifier mismatch, conservation violated. Exit code 3.
class ModelError : public Error {
public:
    using Error::Error;
    int exit_code() const override { return 3; }
};

}  // namespace loom
