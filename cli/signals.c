/* Fatal signals remove the temporary output files first (include/ovtrace/cli/signals.h). */
#include "ovtrace/cli/signals.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "ovtrace/base/atomicfile.h"

/* every signal whose default action terminates the process (a core dump aside) */
static const int SIGS[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE, SIGXFSZ,
                           SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF};
#define N_SIGS (sizeof SIGS / sizeof SIGS[0])
static struct sigaction g_old[N_SIGS];
static bool g_installed[N_SIGS];

static void on_signal(int sig) {
    AtomicFile_removeLive();
    for (size_t i = 0; i < N_SIGS; i++) /* back to the default action, then re-raise */
        if (SIGS[i] == sig) sigaction(sig, &g_old[i], NULL);
    raise(sig);
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_SIGS; i++) {
        g_installed[i] = false;
        if (sigaction(SIGS[i], NULL, &g_old[i]) != 0) continue;
        if (!(g_old[i].sa_flags & SA_SIGINFO) && g_old[i].sa_handler == SIG_DFL)
            g_installed[i] = sigaction(SIGS[i], &sa, NULL) == 0;
    }
}

/* Back to what was there, where the handler is still ours (a command may have set its
 * own since). */
static void restore(void) {
    for (size_t i = 0; i < N_SIGS; i++) {
        struct sigaction cur;
        if (!g_installed[i] || sigaction(SIGS[i], NULL, &cur) != 0) continue;
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == on_signal) sigaction(SIGS[i], &g_old[i], NULL);
        g_installed[i] = false;
    }
}

static void on_live(bool any_live) {
    if (any_live) install();
    else restore();
}

void Signals_cleanTempsOnExit(void) { AtomicFile_onLive(on_live); }
