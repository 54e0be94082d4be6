// The step's stderr, passed through to ours as it comes, with the lines that report a refusal
// (Permission denied, EACCES, EPERM, a host not resolved, a path said not to exist) kept, so that after the step the cage can say which path
// it refused and which policy field would allow it.
#pragma once

#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace toolcage::cage {

class StderrWatch {
  public:
    StderrWatch() = default;
    StderrWatch(const StderrWatch&) = delete;
    StderrWatch& operator=(const StderrWatch&) = delete;
    ~StderrWatch();

    // Before the step starts: the step's stderr, read by us and passed on. A pipe; when our
    // stderr is a terminal (a person reads it as it comes; programs colour and draw progress
    // there), a pseudo-terminal as wide as it. Returns the step's end, or -1 when neither can be
    // made: the step keeps our stderr.
    int open();
    // True when our stdout and stderr are one file (an agent's `2>&1`): the step then gets the
    // pipe as its stdout too, so that its output keeps its order.
    bool merged() const { return merged_; }
    // Before start(): lines naming one of `paths` are kept too (a program that names the file on
    // one line and the refusal on the next, as cargo does).
    void watch_paths(std::vector<std::string> paths) { watched_ = std::move(paths); }
    // Once the step's process is started: closes our copy of the write end and forwards the
    // step's stderr to ours from a thread.
    void start();
    // Once the step and everything it left are gone: forwards what is still buffered, stops,
    // and returns the lines that report a refusal (at most 200).
    std::vector<std::string> finish();

  private:
    void pump();
    bool names_watched(std::string_view line) const;
    bool merged_ = false;
    int read_fd_ = -1;
    int write_fd_ = -1;
    int stop_[2] = {-1, -1};
    std::thread thread_;
    std::vector<std::string> kept_;
    std::vector<std::string> watched_;
    std::string partial_;
};

}  // namespace toolcage::cage
