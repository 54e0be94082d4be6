#include "tools/hook_last_words.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <exception>
#include <initializer_list>

namespace toolcage::cli {

namespace {

// Written with write(2) only: a signal handler may do nothing that allocates or locks.
void last_words(const char* why) {
    static const char head[] = "{\"action\":\"block\",\"message\":\"toolcage: hook.error: ";
    static const char tail[] = "; the call is refused\"}\n";
    ssize_t rc = ::write(STDOUT_FILENO, head, sizeof head - 1);
    rc = ::write(STDOUT_FILENO, why, std::strlen(why));
    rc = ::write(STDOUT_FILENO, tail, sizeof tail - 1);
    static const char err[] = "toolcage: the hook stopped before it could decide: ";
    rc = ::write(STDERR_FILENO, err, sizeof err - 1);
    rc = ::write(STDERR_FILENO, why, std::strlen(why));
    rc = ::write(STDERR_FILENO, "\n", 1);
    (void)rc;
}

// Messages are fixed text: they go into JSON as they are, so no quotes or backslashes.
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

}  // namespace

void arm_hook_last_words() {
    ::signal(SIGPIPE, SIG_IGN);
    std::set_terminate(on_terminate);
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;  // a second fault inside the handler ends the process for good
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGXCPU})
        ::sigaction(sig, &sa, nullptr);
}

}  // namespace toolcage::cli
