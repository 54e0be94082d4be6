// Runs the built toolcage binary against files in a temporary directory, the way a user would.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace toolcage::test {

struct Run {
    int code = -1;
    std::string out, err;
};

// toolcage `args`, with HOME set to `home` (and HERMES_HOME, OPENCLAW_* unset); `extra_env`
// entries are "NAME=value".
Run run_toolcage(const std::vector<std::string>& args, const std::string& home,
                 const std::vector<std::string>& extra_env = {});

// A fresh directory under /tmp, removed with everything in it on destruction.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string str() const { return path_.string(); }
    std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

  private:
    std::filesystem::path path_;
};

void write_file(const std::filesystem::path& p, const std::string& content, unsigned mode = 0644);
std::string read_file(const std::filesystem::path& p);
bool file_exists(const std::filesystem::path& p);
unsigned file_mode(const std::filesystem::path& p);

// Every file under `dir` (relative path -> content); backups left out unless asked for.
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir,
                                            bool with_backups = false);
std::vector<std::filesystem::path> backups(const std::filesystem::path& dir);

// The path toolcage writes into hook commands: the real path of the built binary.
std::string toolcage_path();

// `python3 -c 'yaml.safe_load'` of the file, as JSON; empty when PyYAML is not installed.
std::string yaml_as_json(const std::filesystem::path& p);

}  // namespace toolcage::test
