// The step's TMPDIR (cage/settings/step_tmpdir.h): always an empty directory of this user's, 0700,
// and kept for the next step only when the step changed nothing of it but its entries.
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "cage/settings/step_tmpdir.h"

namespace fs = std::filesystem;
using namespace toolcage::cage;

namespace {

std::string spare(int n) {
    return "/tmp/toolcage-spare-" + std::to_string(::geteuid()) + "-" + std::to_string(n);
}

// What make() hands out: a directory of ours, 0700, empty, named as mkdtemp names them.
void check_fresh(const std::string& dir) {
    struct stat st {};
    REQUIRE(::lstat(dir.c_str(), &st) == 0);
    CHECK(S_ISDIR(st.st_mode));
    CHECK(st.st_uid == ::geteuid());
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(fs::is_empty(dir));
    CHECK(dir.rfind("/tmp/toolcage-", 0) == 0);
    CHECK(dir.find("spare") == std::string::npos);
}

ino_t inode_of(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

}  // namespace

TEST_CASE("the step's TMPDIR is emptied and kept for the next step", "[cage][tmpdir]") {
    std::string first;
    ino_t ino = 0;
    {
        StepTmpdir t;
        first = t.make();
        check_fresh(first);
        ino = inode_of(first);
        // What a step leaves: files, a tree, a symlink out (never followed), a fifo.
        std::ofstream(first + "/f") << "x";
        fs::create_directories(first + "/d/e");
        std::ofstream(first + "/d/e/g") << "y";
        fs::create_symlink("/etc", first + "/out");
        REQUIRE(::mkfifo((first + "/fifo").c_str(), 0600) == 0);
        CHECK(t.release());
        CHECK_FALSE(fs::exists(fs::symlink_status(first)));
    }
    CHECK(fs::exists("/etc/passwd"));  // the link's target untouched
    // The next step gets an empty one: the same directory unless another step took it first.
    StepTmpdir next;
    std::string dir = next.make();
    check_fresh(dir);
    if (inode_of(dir) != ino) WARN("another step took the spare first");
}

TEST_CASE("a TMPDIR the step changed is not kept", "[cage][tmpdir]") {
    SECTION("its mode") {
        StepTmpdir t;
        std::string dir = t.make();
        REQUIRE(::chmod(dir.c_str(), 0755) == 0);
        CHECK_FALSE(t.release());
        CHECK_FALSE(fs::exists(fs::symlink_status(dir)));
    }
    SECTION("an extended attribute") {
        StepTmpdir t;
        std::string dir = t.make();
        if (::setxattr(dir.c_str(), "user.toolcage-test", "1", 1, 0) != 0) {
            WARN("no user xattrs on this filesystem: skipped");
            return;
        }
        CHECK_FALSE(t.release());
        CHECK_FALSE(fs::exists(fs::symlink_status(dir)));
    }
}

TEST_CASE("a spare that is not a directory of ours, 0700 and empty is never used",
          "[cage][tmpdir]") {
    char tmpl[] = "/tmp/toolcage-target-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    const std::string target = tmpl;
    std::ofstream(target + "/keep") << "k";
    // Every spare slot taken by something else: a symlink, a non-empty directory, one 0755,
    // and (as root) one of nobody's.
    auto plant = [&](int n, auto&& make) {
        std::error_code ec;
        fs::remove_all(spare(n), ec);
        make(spare(n));
    };
    plant(0, [&](const std::string& p) { fs::create_symlink(target, p); });
    plant(1, [&](const std::string& p) {
        fs::create_directory(p);
        ::chmod(p.c_str(), 0700);
        std::ofstream(p + "/left") << "l";
    });
    plant(2, [&](const std::string& p) {
        fs::create_directory(p);
        ::chmod(p.c_str(), 0755);
    });
    plant(3, [&](const std::string& p) {
        fs::create_directory(p);
        ::chmod(p.c_str(), 0700);
        if (::geteuid() == 0) {
            REQUIRE(::chown(p.c_str(), 65534, 65534) == 0);
        } else {
            ::chmod(p.c_str(), 0770);
        }
    });
    const ino_t foreign = inode_of(spare(3));
    {
        StepTmpdir t;
        std::string dir = t.make();
        check_fresh(dir);  // none of them: it would not be empty, or not 0700, or not ours
    }
    CHECK(fs::exists(target + "/keep"));  // nothing went through the symlink
    // This user's misfits are removed; someone else's is left as it is, under its new name.
    bool left = false;
    for (const auto& e : fs::directory_iterator("/tmp")) {
        struct stat st {};
        if (::lstat(e.path().c_str(), &st) == 0 && st.st_ino == foreign && st.st_uid != ::geteuid()) {
            left = true;
            std::error_code ec;
            fs::remove_all(e.path(), ec);
        }
    }
    if (::geteuid() == 0) CHECK(left);
    for (int n = 0; n < kSpareTmpdirs; ++n) {
        std::error_code ec;
        fs::remove_all(spare(n), ec);
    }
    fs::remove_all(target);
}
