// The step's stderr, passed through to ours as it comes, with the lines that report a refusal
// (Permission denied, EACCES, EPERM, a host not resolved, a path said not to exist) kept, so that after the step the cage can say which path
// it refused and which policy field would allow it.
#pragma once

#include <string>
#include <string_view>
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
    // Once the step's process is started: closes our copy of the write end. From then on the
    // supervisor, while it waits for the step, calls forward() whenever fd() is readable: no
    // thread of our own (one costs a caged step a tenth of its start-up on a small VM).
    void start();
    // What to wait on: the read end while the step may still write, -1 once it said EOF.
    int fd() const { return eof_ ? -1 : read_fd_; }
    // Passes what the step wrote on to our stderr, keeping the lines that report a refusal;
    // never blocks. True when it stopped with more to read (a step that writes without pause
    // must not keep the supervisor from its signals).
    bool forward();
    // Once the step and everything it left are gone: forwards what is still buffered (without
    // waiting: a process that escaped with the write end must not hold us), and returns the
    // lines that report a refusal (at most 200).
    std::vector<std::string> finish();

  private:
    void pass_on(const char* data, std::size_t n);
    bool names_watched(std::string_view line) const;
    bool merged_ = false;
    bool eof_ = false;
    int read_fd_ = -1;
    int write_fd_ = -1;
    std::vector<std::string> kept_;
    std::vector<std::string> watched_;
    std::string partial_;
};

}  // namespace toolcage::cage
