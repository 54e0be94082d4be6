// Reading, backing up and replacing the agents' configuration files. A write goes to a
// temporary file in the same directory, is fsynced and renamed over the original with its mode
// and owner kept, so a reader sees the old file or the new one, never half of either.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage::install {

namespace fs = std::filesystem;

struct FileState {
    fs::path path;  // symlinks resolved: the file that really changes
    bool exists = false;
    std::string content;
    mode_t mode = 0;  // permission bits only
    uid_t uid = 0;
    gid_t gid = 0;
};

// The file at `path` (following symlinks); absent is not an error, but a missing parent
// directory, a directory in its place or an unreadable file is (Error naming the call).
FileState read_file_state(const fs::path& path);

// Writes `content` to `path` atomically with `mode` (and `uid`/`gid` when running as root).
void write_atomic(const fs::path& path, std::string_view content, mode_t mode, uid_t uid,
                  gid_t gid);

// Removes `path`; fsyncs its directory.
void remove_file(const fs::path& path);

// Copies the file's current bytes to `<path>.toolcage-backup-<timestamp>` with its mode and
// returns the backup's path. Never overwrites an older backup.
fs::path backup_file(const FileState& state);

// This file's backups, oldest first.
std::vector<fs::path> list_backups(const fs::path& path);

// Why `state`'s file (or, when it is absent, its directory) cannot be replaced; empty when it
// can. A file with no write bit set is treated as deliberately read-only, even for root.
std::string why_not_writable(const FileState& state);

// "YYYY-MM-DDTHH:MM:SS.ffffffZ" for a Unix time in microseconds (Python's isoformat in UTC).
std::string iso_utc(long long unix_micros);
long long now_micros();

}  // namespace toolcage::install
