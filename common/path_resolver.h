// Paths with their symlinks resolved, as std::filesystem::weakly_canonical resolves them (the
// longest prefix that exists, the rest as written), each directory looked up once per
// resolver: a policy's sixty grants share a few prefixes (/etc, /usr, the home), and canonical
// would readlink each of them again for every grant (a step's start-up paid ~300 readlinks).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace toolcage {

class PathResolver {
  public:
    // `p` resolved; a relative path, a symlink loop or a lookup refused comes back as written
    // (lexically normal), which callers compare as it stands.
    std::string resolve(const std::string& p);

  private:
    static constexpr int kMaxLinks = 40;  // as the kernel's ELOOP
    std::map<std::string, std::optional<std::string>> seen_;  // nullopt: does not exist
    int links_ = 0;

    bool walk(const std::string& p, std::string& out, int depth);
    std::optional<std::string> look(const std::string& cur, const std::string& next, int depth);
};

}  // namespace toolcage
