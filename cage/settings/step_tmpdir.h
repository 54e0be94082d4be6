// The step's TMPDIR: an empty directory of its own under /tmp (mode 0700), emptied when the
// step is over and kept for the user's next step, because making a directory can cost a
// millisecond and more (ext4 without a journal skips every inode freed in the last minutes).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

namespace toolcage::cage {

// Where emptied TMPDIRs wait for the next step of the same user: /tmp/toolcage-spare-<uid>-<n>.
inline constexpr int kSpareTmpdirs = 4;

class StepTmpdir {
  public:
    StepTmpdir() = default;
    StepTmpdir(const StepTmpdir&) = delete;
    StepTmpdir& operator=(const StepTmpdir&) = delete;
    // Puts the directory back (release()) if it was not already.
    ~StepTmpdir();

    // A spare directory renamed to a fresh /tmp/toolcage-XXXXXX, once it is seen to be a
    // directory of ours, 0700, empty; else a new one (mkdtemp). Throws Error when none can be
    // made. Returns its path.
    const std::string& make();
    const std::string& path() const { return path_; }

    // Once nothing of the step is left: its entries removed (never through a symlink), and
    // the directory kept as a spare when nothing else of it changed during the step (mode,
    // extended attributes and ACLs, inode flags, a directory grown large); else removed.
    // True when it was kept.
    bool release();

  private:
    std::string path_;
    // The directory as the step got it, to tell what the step changed on it.
    struct Attributes {
        dev_t dev = 0;
        ino_t ino = 0;
        unsigned mode = 0;
        long flags = -1;    // FS_IOC_GETFLAGS; -1 where the filesystem has none
        std::string xattrs;  // the names flistxattr() lists
        bool readable = false;
    } start_;
    static bool read_attributes(int fd, Attributes& a, struct stat& st);
};

}  // namespace toolcage::cage
