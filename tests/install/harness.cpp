#include "tests/install/harness.h"

#include "tests/other_user.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace toolcage::test {

namespace {

std::string slurp_fd(int fd) {
    std::string out;
    char buf[4096];
    ::lseek(fd, 0, SEEK_SET);
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
}

Run run(const std::vector<std::string>& argv, std::vector<std::string> env) {
    testsupport::keep_suite_state(env);
    FILE* out = std::tmpfile();
    FILE* err = std::tmpfile();
    if (!out || !err) throw std::runtime_error("tmpfile failed");
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::dup2(::fileno(out), 1);
        ::dup2(::fileno(err), 2);
        int devnull = ::open("/dev/null", O_RDONLY);
        ::dup2(devnull, 0);
        std::vector<char*> a, e;
        for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
        a.push_back(nullptr);
        for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
        e.push_back(nullptr);
        ::execve(a[0], a.data(), e.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    Run r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp_fd(::fileno(out));
    r.err = slurp_fd(::fileno(err));
    std::fclose(out);
    std::fclose(err);
    return r;
}

}  // namespace

Run run_toolcage(const std::vector<std::string>& args, const std::string& home,
                 const std::vector<std::string>& extra_env) {
    std::vector<std::string> argv{TOOLCAGE_BIN};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env{"HOME=" + home, "PATH=/usr/bin:/bin", "LANG=C"};
    // An extra entry replaces a base one of the same name (getenv reads the first).
    for (const auto& e : extra_env) {
        std::string name = e.substr(0, e.find('=') + 1);
        std::erase_if(env, [&](const std::string& b) { return b.starts_with(name); });
    }
    env.insert(env.end(), extra_env.begin(), extra_env.end());
    return run(argv, env);
}

TempDir::TempDir() {
    char tmpl[] = "/tmp/toolcage-install-test-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    // Tests make files read-only; give the owner write access back so they can go.
    for (auto it = fs::recursive_directory_iterator(path_, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        ::chmod(it->path().c_str(), it->is_directory() ? 0755 : 0644);
    ::chmod(path_.c_str(), 0755);
    fs::remove_all(path_, ec);
}

void write_file(const fs::path& p, const std::string& content, unsigned mode) {
    fs::create_directories(p.parent_path());
    {
        std::ofstream f(p, std::ios::binary | std::ios::trunc);
        f << content;
    }
    ::chmod(p.c_str(), mode);
}

std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

bool file_exists(const fs::path& p) {
    return fs::exists(p);
}

unsigned file_mode(const fs::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 07777;
}

std::map<std::string, std::string> snapshot(const fs::path& dir, bool with_backups) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::string rel = fs::relative(e.path(), dir).string();
        if (!with_backups && rel.find(".toolcage-backup-") != std::string::npos) continue;
        out[rel] = read_file(e.path());
    }
    return out;
}

std::vector<fs::path> backups(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().find(".toolcage-backup-") != std::string::npos)
            out.push_back(e.path());
    return out;
}

std::string toolcage_path() {
    return fs::canonical(TOOLCAGE_BIN).string();
}

std::string yaml_as_json(const fs::path& p) {
    Run r = run({"/usr/bin/python3", "-c",
                 "import json, sys\ntry:\n    import yaml\nexcept ImportError:\n    sys.exit(3)\n"
                 "print(json.dumps(yaml.safe_load(open(sys.argv[1])), sort_keys=True))",
                 p.string()},
                {"PATH=/usr/bin:/bin"});
    if (r.code == 3) return "";
    if (r.code != 0) return "python3 failed: " + r.err;
    return r.out;
}

}  // namespace toolcage::test
