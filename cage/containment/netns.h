// A private network for the step where the kernel allows it: a new user and network namespace
// with only loopback. The relay's listening socket is made inside and handed to the supervisor,
// so that the relay, left in the host's namespace, is the step's only way out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace toolcage::cage {

enum class NetworkMode {
    landlock,  // the host's network; Landlock allows TCP connect to the relay's port only
    netns,     // a private network namespace: loopback only, the relay's socket inside
};
std::string_view to_string(NetworkMode mode);

// Inside the namespace the relay listens on a fixed port of 127.0.0.1.
constexpr std::uint16_t kRelayPortInNamespace = 3128;

// True when this process may create a user namespace that holds capabilities: a child made
// with clone(CLONE_VM | CLONE_VFORK) tries unshare(CLONE_NEWUSER), and AppArmor's restriction
// of unprivileged user namespaces counts as a no. `why` says why not.
bool can_create_user_namespace(std::string* why);

// What cage.network "auto" weighs besides the kernel: whether the step has a relay, and the
// Landlock ABI it runs with.
struct NetworkNeeds {
    bool relay = false;
    int abi = 0;
};

// True when Landlock alone closes every way out: no relay, and TCP rights (ABI 4+) to refuse
// every connect and bind. Then "auto" makes no namespace (it would cost 0.5 ms of the kernel's
// time for nothing but loopback). With a relay, Landlock's rule names a port but no address, so
// "auto" makes the namespace, where the relay's port is on loopback only.
bool landlock_closes_network(const NetworkNeeds& needs);

// cage.network ("auto", "netns" or "landlock") against what the kernel allows (asked by
// can_create_user_namespace). `note` says why auto fell back to landlock. Throws Error for
// "netns" when no user namespace can be made.
NetworkMode choose_network_mode(const std::string& setting, const std::string& policy_name,
                                const NetworkNeeds& needs, std::string& note);

// For `run`, which asks the kernel no question beforehand: the step's process tries to make its
// namespace, and only when that fails, network_without_namespace() says what follows. So:
// netns for "netns", and for "auto" unless Landlock closes the network alone or AppArmor is
// known to forbid the namespace (then as below).
NetworkMode first_network_mode(const std::string& setting, const std::string& policy_name,
                               const NetworkNeeds& needs, std::string& note);

// No namespace could be made (`why`): landlock for "auto", with `note`; Error for "netns".
NetworkMode network_without_namespace(const std::string& setting, const std::string& policy_name,
                                      const NetworkNeeds& needs, const std::string& why,
                                      std::string& note);

// What the step's process needs for it, prepared before fork.
struct PrivateNetwork {
    bool enabled = false;
    std::string uid_map;  // "UID UID 1": the caller's ids mapped to themselves
    std::string gid_map;
    bool relay = false;       // make the relay's listening socket and hand it over
    int channel = -1;         // the step's end of a unix socket pair to the supervisor
    int supervisor_end = -1;  // the supervisor's end, closed in the step at once
};

// The maps for the calling process's effective ids.
PrivateNetwork plan_private_network(bool relay);

// In the step's process, before capabilities are dropped: unshare(CLONE_NEWUSER |
// CLONE_NEWNET). Returns 0 or an errno; `what` receives the call as written.
int make_network_namespace(const PrivateNetwork& net, std::string& what);

// Then, in the new namespaces: the id maps (setgroups denied), loopback up, then for the relay
// a listening socket on 127.0.0.1:kRelayPortInNamespace sent over `channel`
// (cage/containment/channel.h), and a wait for the supervisor's go. Returns 0 or an errno; `what`
// receives the call.
int enter_private_network(const PrivateNetwork& net, std::string& what);

// In the supervisor: the listening socket the step sends, or -1 when the step ended first (it
// then reports why on its report pipe).
int receive_relay_listener(int channel);

// Tells the step to go on (after the relay serves its socket). False when it is gone.
bool release_step(int channel);

}  // namespace toolcage::cage
