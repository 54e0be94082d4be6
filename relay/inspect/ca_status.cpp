#include "relay/inspect/ca_status.h"

#include <openssl/asn1.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "common/error.h"
#include "relay/inspect/ca.h"

namespace toolcage::relay {

CaStatus read_ca_status(const std::string& dir) {
    CaStatus s;
    s.dir = dir;
    struct stat key {
    }, cert{};
    bool has_key = ::stat(ca_key_path(dir).c_str(), &key) == 0;
    bool has_cert = ::stat(ca_cert_path(dir).c_str(), &cert) == 0;
    if (!has_key && !has_cert) return s;
    s.present = true;
    if (!has_key || !has_cert) {
        s.problem = "only " + (has_key ? ca_key_path(dir) : ca_cert_path(dir)) + " is there";
        return s;
    }
    s.key_mode = key.st_mode & 07777;
    s.key_owner = key.st_uid;
    FILE* f = std::fopen(ca_cert_path(dir).c_str(), "re");
    if (!f) {
        s.problem = ca_cert_path(dir) + " cannot be read (" + std::strerror(errno) + ")";
        return s;
    }
    X509* x = PEM_read_X509(f, nullptr, nullptr, nullptr);
    std::fclose(f);
    if (!x) {
        s.problem = ca_cert_path(dir) + " holds no PEM certificate";
        return s;
    }
    std::tm tm{};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) == 1) {
        s.expires = static_cast<long long>(timegm(&tm));
        s.days_left = (s.expires - static_cast<long long>(std::time(nullptr))) / 86400;
    } else {
        s.problem = ca_cert_path(dir) + ": its expiry cannot be read";
    }
    X509_free(x);
    return s;
}

std::string ca_status_line(const CaStatus& s, bool& warn) {
    const std::string rotate = "toolcage-relay --make-ca " + s.dir + " --rotate";
    warn = false;
    if (!s.present)
        return "relay CA: none yet in " + s.dir +
               " (made by the first step that inspects a host, or by toolcage-relay --make-ca " +
               s.dir + ")";
    if (!s.problem.empty()) {
        warn = true;
        return "relay CA: WARNING: " + s.problem + "; make a new one: " + rotate;
    }
    char mode[8], date[16];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(s.key_mode));
    std::time_t t = static_cast<std::time_t>(s.expires);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    std::strftime(date, sizeof date, "%Y-%m-%d", &tm);
    std::string line = "relay CA: " + ca_cert_path(s.dir) + ", key " + ca_key_path(s.dir) +
                       " mode " + mode + " owned by uid " + std::to_string(s.key_owner) +
                       ", expires " + date + " (" + std::to_string(s.days_left) + " days)";
    std::string warnings;
    if (s.days_left < 30)
        warnings += s.days_left < 0
                        ? "; WARNING: it has expired, so every inspected host fails: " + rotate
                        : "; WARNING: it expires within 30 days: " + rotate;
    if (s.key_mode & 077)
        warnings += "; WARNING: the key is readable by group or others: chmod 600 " +
                    ca_key_path(s.dir) + ", and rotate it (" + rotate +
                    ") if anyone else may have read it";
    if (s.key_owner != ::geteuid())
        warnings += "; WARNING: the key is not owned by this user (uid " +
                    std::to_string(::geteuid()) +
                    "), so another user could read or replace it: " + rotate;
    warn = !warnings.empty();
    return line + warnings;
}

void rotate_ca(const std::string& dir) {
    const std::string next = dir + "/.rotating";
    std::error_code ec;
    std::filesystem::remove_all(next, ec);  // a rotation that was interrupted
    ensure_ca(next);                        // 0700, the key 0600, as the first CA was made
    for (const auto& path : {ca_key_path(dir), ca_cert_path(dir)}) {
        const std::string from = next + "/" + std::filesystem::path(path).filename().string();
        if (::rename(from.c_str(), path.c_str()) != 0)
            throw Error(syscall_error("rename(\"" + from + "\", \"" + path + "\")", errno) +
                        "; check that " + dir + " is this user's and writable");
    }
    std::filesystem::remove_all(next, ec);
}

}  // namespace toolcage::relay
