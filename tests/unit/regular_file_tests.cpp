// read_regular_file: a small file whole, anything else refused at once with what it is.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <string>

#include "common/regular_file.h"
#include "temp_dir.h"

using toolcage::read_regular_file;
using toolcage::RegularFile;
using toolcage::test::TempDir;

TEST_CASE("a regular file is read whole, up to the bound and not a byte over", "[regular_file]") {
    TempDir d;
    const std::string text(1000, 'p');
    RegularFile at = read_regular_file(d.write("at.json", text).string(), 1000);
    CHECK(at.problem == RegularFile::Problem::none);
    CHECK(at.text == text);
    RegularFile over = read_regular_file(d.write("over.json", text + "q").string(), 1000);
    CHECK(over.problem == RegularFile::Problem::too_large);
    CHECK(over.size == 1001);
    CHECK(over.text.empty());
    CHECK(read_regular_file(d.write("empty.json", "").string(), 1000).problem == RegularFile::Problem::none);
}

TEST_CASE("a file whose size says nothing is read as it is (procfs gives 0)", "[regular_file]") {
    RegularFile f = read_regular_file("/proc/self/status", 1 << 20);
    REQUIRE(f.problem == RegularFile::Problem::none);
    CHECK(f.size == 0);
    CHECK(f.text.find("\nPid:") != std::string::npos);
    CHECK(f.text.size() > 500);  // many times the first read's room
    // More than the bound by the time it is read.
    CHECK(read_regular_file("/proc/self/status", 100).problem == RegularFile::Problem::grew);
}

TEST_CASE("what is not a regular file is refused at once, with its kind", "[regular_file]") {
    TempDir d;
    REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
    RegularFile fifo = read_regular_file((d.path / "fifo").string(), 1000);  // no writer: not waited on
    CHECK(fifo.problem == RegularFile::Problem::not_regular);
    CHECK(std::string(toolcage::file_kind(fifo.mode)) == "a FIFO");
    RegularFile dir = read_regular_file(d.path.string(), 1000);
    CHECK(dir.problem == RegularFile::Problem::not_regular);
    CHECK(std::string(toolcage::file_kind(dir.mode)) == "a directory");
    CHECK(std::string(toolcage::file_kind(read_regular_file("/dev/null", 10).mode)) == "a character device");
    RegularFile gone = read_regular_file((d.path / "nope").string(), 1000);
    CHECK(gone.problem == RegularFile::Problem::cannot_open);
    CHECK(gone.err == ENOENT);
}
