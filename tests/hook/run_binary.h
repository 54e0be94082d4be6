// Runs a built binary the way an agent runs a hook: arguments, a payload on stdin, a chosen
// environment; collects stdout, stderr and the exit code.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace toolcage::test {

struct RunResult {
    std::string out;
    std::string err;
    int exit_code = -1;  // 128 + signal when killed
};

// `env` is the whole environment of the child (nothing is inherited).
RunResult run_binary(const std::string& path, const std::vector<std::string>& args,
                     const std::string& input, const std::map<std::string, std::string>& env);

// A fresh directory, removed with everything in it when the object goes. Under `parent`; the
// protocol tests use the build tree, and the path tests /tmp and /var/tmp too.
class TempDir {
public:
    explicit TempDir(const std::string& parent = "/tmp");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

private:
    std::string path_;
};

void write_file(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);
void make_dirs(const std::string& path);

}  // namespace toolcage::test
