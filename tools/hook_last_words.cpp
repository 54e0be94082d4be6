#include "tools/hook_last_words.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>

#include "hook/pipeline/process_bounds.h"

namespace toolcage::cli {

namespace {

// Whose format the refusal takes, from --agent; without it a Hermes block, which the other
// agents ignore on exit 2 (Claude Code reads stderr, OpenClaw's plugin blocks what it cannot
// read).
enum class Format { hermes, claude, openclaw };
Format g_format = Format::hermes;

// The deadline's message, made when the hook is armed: a handler may not format text.
char g_deadline_text[256];

// Room for the handlers when the fault is a stack overflow (deep recursion on attacker input):
// without a stack of their own they could not run at all, and the agent would get no answer.
alignas(16) char g_signal_stack[64 * 1024];

void put(int fd, const char* s) {
    ssize_t rc = ::write(fd, s, std::strlen(s));
    (void)rc;
}

// Written with write(2) only: a signal handler may do nothing that allocates or locks.
// Messages are fixed text without quotes or backslashes, so they go into JSON as they are.
void last_words(const char* why) {
    switch (g_format) {
        case Format::claude:  // Claude Code blocks on exit 2 and shows stderr
            break;
        case Format::openclaw:
            put(STDOUT_FILENO, "{\"decision\":\"deny\",\"rule\":\"hook.error\",\"reason\":\"toolcage: hook.error: ");
            put(STDOUT_FILENO, why);
            put(STDOUT_FILENO, "; the call is refused\"}\n");
            break;
        case Format::hermes:
            put(STDOUT_FILENO, "{\"action\":\"block\",\"message\":\"toolcage: hook.error: ");
            put(STDOUT_FILENO, why);
            put(STDOUT_FILENO, "; the call is refused\"}\n");
            break;
    }
    put(STDERR_FILENO, "toolcage: hook.error: the hook stopped before it could decide: ");
    put(STDERR_FILENO, why);
    put(STDERR_FILENO, "; the call is refused\n");
}

const char* signal_text(int sig) {
    switch (sig) {
        case SIGSEGV:
            return "the hook crashed (SIGSEGV)";
        case SIGBUS:
            return "the hook crashed (SIGBUS)";
        case SIGFPE:
            return "the hook crashed (SIGFPE)";
        case SIGILL:
            return "the hook crashed (SIGILL)";
        case SIGABRT:
            return "the hook aborted (SIGABRT)";
        case SIGTERM:
            return "the hook was told to stop (SIGTERM)";
        case SIGINT:
            return "the hook was interrupted (SIGINT)";
        case SIGHUP:
            return "the hook lost its terminal (SIGHUP)";
        case SIGXCPU:
            return "the hook ran out of CPU time (SIGXCPU)";
        case SIGALRM:
            return g_deadline_text;
        default:
            return "the hook got a fatal signal";
    }
}

void on_signal(int sig) {
    last_words(signal_text(sig));
    ::_exit(2);
}

void on_terminate() {
    last_words("an error escaped the hook (std::terminate)");
    ::_exit(2);
}

Format format_from(int argc, char** argv) {
    const char* agent = hook_agent_argument(argc, argv);
    if (agent && std::strcmp(agent, "claude") == 0) return Format::claude;
    if (agent && std::strcmp(agent, "openclaw") == 0) return Format::openclaw;
    return Format::hermes;
}

void bound_memory() {
    if (kAddressSanitizer) return;
    rlimit rl{};
    if (::getrlimit(RLIMIT_AS, &rl) != 0) return;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= hook::kAddressSpace) return;
    rl.rlim_cur = hook::kAddressSpace;
    ::setrlimit(RLIMIT_AS, &rl);
}

void start_deadline() {
    std::snprintf(g_deadline_text, sizeof g_deadline_text,
                  "the hook could not decide within its deadline (%s; a call it cannot judge in "
                  "time is refused): split the command into simpler ones",
                  hook::kDeadlineText);
    itimerval t{};
    auto ms = hook::kDeadline.count();
    t.it_value.tv_sec = static_cast<time_t>(ms / 1000);
    t.it_value.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
    ::setitimer(ITIMER_REAL, &t, nullptr);
}

}  // namespace

const char* hook_agent_argument(int argc, char** argv) {
    const char* agent = nullptr;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--agent") == 0 && i + 1 < argc) agent = argv[i + 1];
        if (std::strncmp(argv[i], "--agent=", 8) == 0) agent = argv[i] + 8;
    }
    return agent;
}

void arm_hook_last_words(int argc, char** argv) {
    g_format = format_from(argc, argv);
    ::signal(SIGPIPE, SIG_IGN);
    std::set_terminate(on_terminate);
    stack_t ss{};
    ss.ss_sp = g_signal_stack;
    ss.ss_size = sizeof g_signal_stack;
    ::sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);  // one handler at a time: one answer
    // A second fault inside the handler ends the process for good.
    sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGXCPU, SIGALRM})
        ::sigaction(sig, &sa, nullptr);
    bound_memory();
    start_deadline();
}

}  // namespace toolcage::cli
