// What `toolcage doctor` says of toolcage's inspection CA: whether it is there, who owns its
// key and who else can read it, when it expires; and its rotation (toolcage-relay --make-ca DIR
// --rotate): a new key and certificate in place of the old, for a key that leaked or a
// certificate near its end.
#pragma once

#include <sys/types.h>

#include <string>

namespace toolcage::relay {

struct CaStatus {
    std::string dir;
    bool present = false;  // both ca.key and ca.pem are there
    std::string problem;   // why it could not be read, when it could not
    mode_t key_mode = 0;
    uid_t key_owner = 0;
    long long expires = 0;  // notAfter, seconds since the epoch
    long long days_left = 0;
};

CaStatus read_ca_status(const std::string& dir);

// The doctor's line (without a newline); `warn` set when the CA expires within 30 days, its
// key is readable by group or others or owned by another user, or it cannot be read.
std::string ca_status_line(const CaStatus& s, bool& warn);

// Replaces the CA in `dir` by a new one (made beside it, then renamed over the old files).
// Steps already running keep the old CA until they end; the next step's bundle has the new one.
// Throws toolcage::Error naming the path and the fix.
void rotate_ca(const std::string& dir);

}  // namespace toolcage::relay
