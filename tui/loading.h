/* Progressive load: the trace loads on a background thread while the
 * terminal shows a loading screen (file names and sizes, a progress bar with bytes
 * done/total, events so far, MB/s, ETA, "q cancels") and, under it, a live preview
 * of the timeline built from the events read so far (tui/preview.c).
 *
 *   LoadWatch    thread-safe progress collector; its LoadWatch_progress is the
 *                LoadOptions.progress callback (may be called from any thread), its
 *                LoadWatch_observe the LoadOptions.observe hook feeding the preview.
 *   LoadingView  a plain snapshot of it; Loading_render draws one into a cell grid
 *                (pure: unit-tested without a terminal).
 *   LoadJob      the background thread: Load_files, then the viewer's App (index).
 *   LoadJob_runScreen  the interactive loop that paints the loading screen until the
 *                job ends or the user cancels. */
#ifndef OVTRACE_TUI_LOADING_H
#define OVTRACE_TUI_LOADING_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* load.h uses FILE */

#include "ovtrace/read/load.h"
#include "grid.h"
#include "preview.h"
#include "theme.h"
#include "ovtrace/tui/viewer.h"

struct App;

typedef enum {
    LOAD_STARTING, /* thread started, nothing read yet */
    LOAD_READING,  /* parsing the files */
    LOAD_BUILDING, /* all bytes read: finishing the model, classifying, building the view index */
    LOAD_DONE,
    LOAD_FAILED,
} LoadPhase;

/* What LOAD_BUILDING is doing: the loader's stages (LoadStage, one apart), then the
 * viewer's index. */
typedef enum {
    BUILD_WAITING, /* every byte reported, no stage yet: the parse's last slices */
    BUILD_LANES,   /* LOAD_STAGE_LANES + 1 */
    BUILD_SORT,
    BUILD_FLOWS,
    BUILD_CLASSIFY,
    BUILD_SNAPSHOT,
    BUILD_INDEX, /* the viewer's index: per-row sums, overlap bands (App_new) */
} BuildStage;

typedef struct {
    size_t n_files;
    const char *const *names; /* display names (base names), n_files of them */
    const uint64_t *sizes;    /* bytes on disk, n_files of them */
    size_t current;           /* index of the file being read */
    uint64_t done, total;     /* bytes over all files (compressed files count compressed bytes) */
    size_t events;            /* model events so far (what `stats` counts); final from BUILD_LANES on */
    double elapsed;           /* seconds since the load started */
    double read_elapsed;      /* seconds the reading took (set from LOAD_BUILDING on) */
    LoadPhase phase;
    BuildStage build;           /* in LOAD_BUILDING */
    size_t lanes, flow_points;  /* told with the stage (from BUILD_LANES on) */
    double stage_elapsed;       /* seconds in the current build stage */
    bool cancelling;             /* the user asked to cancel; waiting for the loader to stop */
    const PreviewModel *preview; /* NULL or no lanes yet: no preview */
    bool colors;                 /* the terminal has colours: the preview shows the class legend */
} LoadingView;

/* 0..100, 0 when total is 0. */
int Loading_percent(uint64_t done, uint64_t total);
/* Average read rate in bytes/s over the elapsed time (0 when not yet known). */
double Loading_rate(const LoadingView *v);
/* Seconds left at the average rate; < 0 when not yet known (under 0.1 s or 1 MB read). */
double Loading_eta(const LoadingView *v);
/* "--" (unknown), "0.4 s", "12 s", "3m05s", "1h02m". Returns buf. */
char *Loading_formatEta(char *buf, size_t n, double seconds);
/* Decimal units like the stats progress bar: "812 B", "3.4 kB", "682.1 MB", "2.00 GB". */
char *Loading_formatBytes(char *buf, size_t n, uint64_t bytes);
/* What the load is doing, for the line under the figures: "reading events", "sorting
 * 1,289,714 events on 8 lanes into rows (0.3 s)", ... Returns buf. */
char *Loading_stageText(char *buf, size_t n, const LoadingView *v);
/* The whole loading screen, sized to g. With a preview that has lanes (and room for
 * it), the progress block moves to the top and the preview fills the rest. Returns
 * whether the preview was drawn. */
bool Loading_render(Grid *g, const LoadingView *v, const Glyphs *gl);

typedef struct LoadWatch LoadWatch;
/* Stats the inputs up front (a directory counts its trace files, as Load_files reads them). */
LoadWatch *LoadWatch_new(const char *const *paths, size_t n);
/* TEST HOOK (view --debug-load-throttle-ms): sleep ms per progress report, so that
 * end-to-end tests can watch the loading screen. 0: none. */
void LoadWatch_setThrottleMs(LoadWatch *w, long ms);
void LoadWatch_free(LoadWatch *w);
/* LoadProgressFn; ctx is the LoadWatch. */
void LoadWatch_progress(void *ctx, const char *path, uint64_t done, uint64_t total, size_t events);
void LoadWatch_setPhase(LoadWatch *w, LoadPhase p);
/* LoadStageFn; ctx is the LoadWatch. Enters LOAD_BUILDING with the model's counts. */
void LoadWatch_stage(void *ctx, LoadStage stage, size_t events, size_t lanes, size_t flow_points);
/* The viewer's own build stage (BUILD_INDEX). */
void LoadWatch_setBuild(LoadWatch *w, BuildStage b);
/* Keeps a preview of the partial trace (rules: as the final classification, NULL:
 * built-in); borrowed rules must outlive w. */
void LoadWatch_enablePreview(LoadWatch *w, const CommRules *rules);
/* LoadOptions.observe; ctx is the LoadWatch. Updates the preview under the preview's
 * own mutex (only the events added since the last call are read); a snapshot only
 * tries that mutex, so the UI thread never waits for an update. */
void LoadWatch_observe(void *ctx, const Trace *partial);
/* Consistent copy for rendering; names/sizes point into w (valid until LoadWatch_free).
 * The preview is copied into a model w keeps for the one thread that takes snapshots
 * (the UI thread); out->preview points to it (valid until the next snapshot). */
void LoadWatch_snapshot(LoadWatch *w, LoadingView *out);

struct LoadJob {
    /* set by LoadJob_start */
    const char *const *paths;
    size_t n_paths;
    LoadOptions opt;
    Caps caps;
    char title[128];
    const CollOptions *coll; /* set: the App comes from App_newMatching */
    bool coll_set;
    LoadWatch *watch;
    atomic_int cancel; /* LoadOptions.cancel points here */
    /* results, valid once LoadJob_finished */
    struct App *app; /* NULL on error */
    char err[1024];
    char *warnings; /* Load_printWarnings text, NULL if none */
    atomic_bool finished;
    pthread_t thread;
    bool started, launch_failed;
};

/* Prepares loading paths with the rules/threads of opt (its progress, observe and
 * cancel fields are replaced; a cancel flag already set is kept): stats the inputs,
 * sets up the preview, no thread. */
void LoadJob_init(LoadJob *j, const char *const *paths, size_t n, const LoadOptions *opt, Caps caps, const char *title);
/* Starts the loading thread. False (message in j->err) if it cannot be created. */
bool LoadJob_launch(LoadJob *j);
/* LoadJob_init + LoadJob_launch. */
bool LoadJob_start(LoadJob *j, const char *const *paths, size_t n, const LoadOptions *opt, Caps caps,
                   const char *title);
bool LoadJob_finished(LoadJob *j);
/* Asks the loader to stop (it returns "loading cancelled"). */
void LoadJob_cancel(LoadJob *j);
/* Waits for the thread (idempotent). */
void LoadJob_join(LoadJob *j);
/* Frees the job's watch and warnings; the app (if any) belongs to the caller. */
void LoadJob_free(LoadJob *j);

/* LoadJob_new, LoadJob_runScreen and the rest the command line uses: ovtrace/tui/viewer.h */

/* Timing hook for benchmarks: when Loading_setFrameLog named a file, appends
 * "WHAT <seconds since the epoch, ns precision>" the first time each WHAT is marked
 * ("first-frame" after the first paint, "timeline" after the first timeline paint). */
void Loading_markFrame(const char *what);

#endif
