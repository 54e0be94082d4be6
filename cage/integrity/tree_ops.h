// The file operations the hold pass and `toolcage land` share: every one by directory fds, never
// through a symlink, so that a tree a step left cannot send them outside the workspace.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <utility>

namespace toolcage::cage::tree {

// How the tree's directories are opened: never through a symlink.
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// A descriptor closed when it goes out of scope.
struct Fd {
    int fd = -1;
    explicit Fd(int f = -1) : fd(f) {}
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

// A workspace-relative name that stays inside: not empty nor absolute, no "", "." or ".."
// component, no NUL. Names read back from a journal or a record are checked with it before use.
bool relative_inside(const std::string& rel);

// `rel`'s parent and last component ("a/b/c" -> {"a/b", "c"}; "c" -> {"", "c"}).
std::pair<std::string, std::string> split(const std::string& rel);

// Opens the directory `rel` names below `base` (O_DIRECTORY, close-on-exec), one component at a
// time, never through a symlink; "" opens `base` again. `create`: missing components are made
// with `mode`. -1 with errno set (ELOOP or ENOTDIR where a component is not a directory).
int open_dir(int base, const std::string& rel, bool create, mode_t mode = 0755);

// A name no one can have guessed: `prefix` and 24 random hex digits.
std::string temp_name(std::string_view prefix);

// Copies the entry `from` in `from_dir` to the new name `to` in `to_dir`: a file's bytes and
// permission bits (fsynced), a symlink's target, a directory with everything in it. Special
// files are not copied (an error). "" or the failing call as written.
std::string copy(int from_dir, const std::string& from, int to_dir, const std::string& to);

// Removes the entry `name` of `dir`, a directory with everything in it. "" or the failing call.
std::string remove(int dir, const std::string& name);

// Moves the entry: rename, or copy and remove across file systems. "" or the failing call.
std::string move(int from_dir, const std::string& from, int to_dir, const std::string& to);

// Reads a file opened at `dir`/`name` (O_NOFOLLOW) up to `limit` bytes; false with errno set.
// `more`: the file held more than `limit`.
bool read_file(int dir, const std::string& name, std::string& out, std::size_t limit, bool& more);

// Writes `data` to a new file `name` in `dir` (O_EXCL, then fchmod to `mode`, fsync). "" or the
// failing call.
std::string write_new(int dir, const std::string& name, const std::string& data, mode_t mode);

// Reads a symlink's target; false with errno set.
bool read_link(int dir, const std::string& name, std::string& out);

}  // namespace toolcage::cage::tree
