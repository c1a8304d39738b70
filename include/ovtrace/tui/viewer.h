/* The viewer as the command line drives it: open a model, set it up, run it on the
 * terminal, headless, or behind the loading screen. The rest of tui/ is private. */
#ifndef OVTRACE_TUI_VIEWER_H
#define OVTRACE_TUI_VIEWER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ovtrace/analysis/collectives.h"
#include "ovtrace/model/trace.h"
#include "ovtrace/read/load.h"
#include "ovtrace/tui/terminal.h"

typedef struct App App;
typedef struct TuiKey TuiKey;
typedef struct LoadJob LoadJob;

/* A model that grows (live mode). poll() is called between frames: it may append data
 * and return a new finished model in *t (the old one stays owned by the source until
 * the next poll); it returns true when *t changed. set_frozen tells the source the user
 * froze the display (it may keep collecting). describe() gives a short state text for
 * the title bar ("LIVE 12k ev/s"). All optional but poll. */
typedef struct {
    bool (*poll)(void *ctx, Trace **t);
    void (*set_frozen)(void *ctx, bool frozen);
    const char *(*describe)(void *ctx);
    void *ctx;
    /* Saves the whole current buffer to path (the E key; live mode); msg gets the
     * result shown in the status bar. Optional. */
    bool (*save)(void *ctx, const char *path, char *msg, size_t msglen);
    /* The whole retained buffer as one model, for a frozen display, so that everything
     * retained can be browsed (the followed snapshots are capped). Called when the
     * display freezes and then between frames while frozen until it returns true: a
     * source may build it in the background (set_frozen(false) drops it). Same
     * ownership as poll. Optional. */
    bool (*snapshot_all)(void *ctx, Trace **t);
} TuiSource;

/* ---- the viewer ---- */

/* The viewer of t (t stays the caller's unless a lazy load takes it). */
App *App_new(Trace *t, Caps caps, const char *title);
void App_free(App *a);
Trace *App_trace(const App *a);
/* A note in the status bar (error: in the error colour). */
void App_notice(App *a, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Fits [*t0, *t1) to the model's extent: 0 when inside, 1 when clamped, -1 when it lies
 * wholly outside (nothing to show). */
int App_clampRange(const App *a, int64_t *t0, int64_t *t1);
/* Shows [t0, t1) (at least 1 ns), the cursor at t0. */
void App_setWindow(App *a, int64_t t0, int64_t t1);
/* Marks [t0, t1) as the range; the panel shows its statistics. */
void App_setRange(App *a, int64_t t0, int64_t t1);
/* Runs on the terminal until q (src: a live source, or NULL); returns the exit status. */
int App_runInteractive(App *a, const TuiSource *src);
/* Renders max(frames, nkeys + 1) frames of w x h, feeding one key per frame; dumps
 * the last grid to out when dump is set. Returns the exit status. */
int App_runHeadless(App *a, const TuiSource *src, const TuiKey *keys, size_t nkeys, int frames, int w, int h, bool dump,
                    FILE *out);
/* Parses a key script: literal characters, and <Name> for special keys: Left Right
 * Up Down S-Left S-Right S-Up S-Down PgUp PgDn Home End Tab S-Tab Enter Esc Space BS
 * Del F1 lt gt C-x (Ctrl+letter) Click:X,Y WheelUp:X,Y WheelDown:X,Y Resize:WxH.
 * Returns false with a message. *out is malloc'd. */
bool Keys_parseScript(const char *s, TuiKey **out, size_t *n, char *err, size_t errlen);

/* ---- what the command line sets up ---- */

/* Coll_analyze's options for the collectives view (kept; NULL: defaults). */
void CollView_setOptions(App *a, const CollOptions *opt);
/* App_new with the collectives view's options set (CollView_setOptions), its matching
 * (two ranks or more) started first on a thread of its own: the view index builds
 * meanwhile, and the first frame takes the report when it draws it. */
App *App_newMatching(Trace *t, Caps caps, const char *title, const CollOptions *opt);
/* The model holds runs to compare (view A B --align): takes run_of_source (malloc'd,
 * one entry per source); names ("A a.json") and offsets (the origin each run was
 * shifted by) per run. The groups' labels name their run (Align_runs). */
void Compare_setRuns(App *a, uint32_t *run_of_source, size_t n_runs, const char *const *names, const int64_t *offsets);
/* Enables the kernel table's y key (OSC 52 copy; view --osc52). Off by default. */
void KTable_setOsc52(bool on);
/* Whether `view` should open these inputs lazily: at least 8 trace files (a directory
 * counts its files) and 64 MB or more. mode (view --lazy): -1 auto, 0 off, 1 on at any
 * size. */
bool LazyLoad_wanted(const char *const *paths, size_t n, int mode);
/* a's model is a GPU-only model of paths: takes ownership of it (and of the full model
 * later; App_free frees both) and starts the full load with opt (copied; its progress,
 * cancel and observe fields are replaced). Test hooks: delay_ms holds the full load back
 * (polling the cancel request), stall_ms sleeps after the files are read without
 * polling it, as matching the collectives of a big model does. */
void LazyLoad_start(App *a, const char *const *paths, size_t n, const LoadOptions *opt, int delay_ms, int stall_ms);
/* On quitting: asks the background load to stop and waits grace_ms at most for it. True
 * when none runs any more (App_free joins it at once); false when it is in a step that
 * does not poll the cancel request: the caller exits without waiting (App_free would). */
bool LazyLoad_stop(App *a, int grace_ms);
/* The model belongs to the lazy load (App_free frees it). */
bool LazyLoad_ownsModel(const App *a);
/* The options a file opened from the viewer loads with (Enter on a rank of a run
 * summary: its trace replaces the summary); copied. */
void LazyLoad_setOptions(App *a, const LoadOptions *opt);

/* ---- the loading screen ---- */

/* Loads paths with the rules and threads of opt behind the loading screen (the thread
 * starts after the first paint). */
LoadJob *LoadJob_new(const char *const *paths, size_t n, const LoadOptions *opt, Caps caps, const char *title);
/* The collectives view's options: the loaded model's App comes from App_newMatching
 * (without: App_new, the options unset). */
void LoadJob_setCollOptions(LoadJob *j, const CollOptions *opt);
/* Test hook (view --debug-load-throttle-ms): sleep ms per progress report. */
void LoadJob_setThrottleMs(LoadJob *j, long ms);
/* On an initialised terminal (Crt_init), paints the loading screen until the job
 * finishes; q, Esc or Ctrl-C cancel. Returns 0 when the job finished (LoadJob_app),
 * -1 when the user cancelled with a key, 128+signal after SIGINT/SIGTERM/SIGHUP. A
 * cancel waits LOAD_CANCEL_GRACE_MS at most for the loading thread. */
int LoadJob_runScreen(LoadJob *j);
#define LOAD_CANCEL_GRACE_MS 100
/* After a cancel: the loading thread has not stopped within the grace, being in a step
 * that does not poll the cancel request (building a model of a million lanes takes
 * seconds). The caller exits without waiting for it (LoadJob_delete would wait). */
bool LoadJob_running(LoadJob *j);
/* The viewer of the loaded model (NULL after an error: LoadJob_error); the caller's. */
App *LoadJob_app(const LoadJob *j);
const char *LoadJob_error(const LoadJob *j);
/* The load's warnings (Load_printWarnings text), NULL if none. */
char *LoadJob_warnings(const LoadJob *j);
/* Frees the job (not its app), after waiting for its thread. */
void LoadJob_delete(LoadJob *j);
/* Where frame marks go (view --debug-frame-log; NULL: nowhere), set before the first
 * frame: "first-frame", "timeline" with their times, for benchmarks. */
void Loading_setFrameLog(const char *path);

#endif
