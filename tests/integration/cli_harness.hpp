// Runs the real `loom` binary in a separate process and captures what a user sees: the exit code, stdout and
// stderr apart (the contract is about the FIRST line of stderr).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace loom_cli {

namespace fs = std::filesystem;

struct Run {
    int code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
    std::string first_err() const { return err.substr(0, err.find('\n')); }
};

inline std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// A fresh folder for one test's files. Named by the test process as well as by `name`, so that two test runs on
// one machine (two checkouts, or two ctest runs at once) never share one; the process removes its folders when it
// exits.
inline fs::path scratch(const std::string& name) {
    struct Made {
        std::vector<fs::path> dirs;
        ~Made() {
            std::error_code ignored;
            for (const fs::path& d : dirs) fs::remove_all(d, ignored);
        }
    };
    static Made made;
    const fs::path d = fs::temp_directory_path() / ("loom-cli-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    made.dirs.push_back(d);
    return d;
}

inline void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// Runs `loom ARGS` from the source folder through /bin/sh (ARGS may redirect stdout itself, e.g. "> /dev/full").
// `env` is prefixed to the command ("LOOM_LOG=debug").
inline Run loom(const std::string& args, const std::string& env = "") {
    static int counter = 0;
    const fs::path dir = fs::temp_directory_path() / "loom-cli-test-streams";
    fs::create_directories(dir);
    const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const fs::path out = dir / ("out-" + tag), err = dir / ("err-" + tag);
    // Redirections apply left to right: the command's own redirection of stdout, if any, comes after ours and wins.
    const std::string cmd = "cd '" + std::string(LOOM_SOURCE_DIR) + "' && " + env + " '" + LOOM_EXE + "' >'" +
                            out.string() + "' 2>'" + err.string() + "' " + args;
    Run r;
    const int status = std::system(cmd.c_str());
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    fs::remove(out);
    fs::remove(err);
    return r;
}

// Starts `loom ARGS` in the background, waits `delay_s`, sends `signal` and waits: the exit code and stderr.
inline Run loom_interrupted(const std::string& args, const char* signal, double delay_s) {
    const fs::path dir = fs::temp_directory_path() / "loom-cli-test-streams";
    fs::create_directories(dir);
    const fs::path err = dir / ("int-err-" + std::to_string(::getpid()));
    // `exec` so that $! is loom itself; a background job of a non-interactive shell starts with SIGINT ignored,
    // which loom overrides (it installs its own handler).
    const std::string cmd = "cd '" + std::string(LOOM_SOURCE_DIR) + "' && (exec '" + LOOM_EXE + "' " + args +
                            " >/dev/null 2>'" + err.string() + "') & pid=$!; sleep " + std::to_string(delay_s) +
                            "; kill -" + signal + " $pid; wait $pid; exit $?";
    Run r;
    const int status = std::system(cmd.c_str());
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    fs::remove(err);
    return r;
}

}  // namespace loom_cli
