// The kernel's own record of what Landlock refused (ABI 7, Linux 6.15+): AUDIT_LANDLOCK_ACCESS
// (1423) and AUDIT_LANDLOCK_DOMAIN (1424) records, read from the audit netlink socket's
// multicast group. Readable only with CAP_AUDIT_READ (root) and while kernel auditing is on.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace toolcage::cage {

inline constexpr int kAuditLandlockAccess = 1423;
inline constexpr int kAuditLandlockDomain = 1424;

// Whether Landlock's records can be read here, and if not, why (for `doctor` and the hints).
struct AuditAvailability {
    bool readable = false;
    std::string why;  // when not readable: what is missing and how to get it
};
AuditAvailability landlock_audit_availability();

class LandlockAuditWatch {
  public:
    LandlockAuditWatch() = default;
    LandlockAuditWatch(const LandlockAuditWatch&) = delete;
    LandlockAuditWatch& operator=(const LandlockAuditWatch&) = delete;
    ~LandlockAuditWatch();

    // Before the step: joins the audit log's multicast group when auditing is on and we may
    // read it. Returns false (and `why`) when not.
    bool open(std::string& why);
    // After the step: the access records (their text after "audit(…): ") of the Landlock
    // domains that one of the step's processes `pids` created (under a step init of its own,
    // the step's process is the init's child, not the supervisor's).
    std::vector<std::string> records_for(const std::vector<pid_t>& pids);

  private:
    int fd_ = -1;
};

// The pure part, for tests: from audit messages (type, text), the access records of the
// domains whose AUDIT_LANDLOCK_DOMAIN "allocated" record names one of `pids`.
std::vector<std::string> select_step_records(
    const std::vector<std::pair<int, std::string>>& messages, const std::vector<pid_t>& pids);

}  // namespace toolcage::cage
