/* ovtrace view: the terminal timeline (tui/). Also the headless smoke mode
 * (--frames/--keys/--dump) that renders through the same key table without a
 * terminal. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/write/export.h"
#include "ovtrace/model/timeunits.h"
#include "ovtrace/tui/title.h"
#include "ovtrace/tui/viewer.h"
#include "view_compare.h"

void help_view(FILE *out) {
    fprintf(out,
            "usage: ovtrace view [OPTIONS] FILE...   (or: ovtrace FILE...)\n\n"
            "Terminal timeline: lanes per GPU stream under a header per device (with the device's\n"
            "overlap ratio for the visible range), an overlap band per device (compute / comm hidden /\n"
            "comm exposed / memory / idle), CPU threads in collapsible groups, a details panel and\n"
            "range statistics equal to 'ovtrace stats --range'. Press ? inside for every key.\n"
            "With several ranks: the wait of each collective (before the last rank arrived) drawn\n"
            "apart from its transfer, x / X to the same collective on the last / next rank; from 8\n"
            "ranks a rank overview, one line per device (O toggles, Enter expands a rank).\n\n"
            "options:\n"
            "  --range A:B        open on [A, B) (relative to the trace start, with units; clamped to\n"
            "                     the trace with a message, an error when wholly outside it)\n"
            "  --ascii            ASCII glyphs only (default: Unicode when the locale is UTF-8)\n"
            "  --osc52            let y in the kernel table (t) copy a name to the clipboard with the\n"
            "                     OSC 52 escape (off by default; also OVTRACE_OSC52=1)\n"
            "  --color MODE       auto (default), 256, 16 or none (NO_COLOR and TERM=vt100 mean none)\n"
            "  --lazy MODE        auto (default: lazy from 8 rank files and 64 MB), on or off: the rank\n"
            "                     overview opens on the GPU lanes while the rest loads behind it\n"
            "comparing two runs (view A B --align MODE; A, B: a file, a directory or file,file,...):\n"
            "  --align start      each run on its own clock, starting at 0; runs drawn one above the\n"
            "                     other (rank by rank), groups labelled with run and file name;\n"
            "                     V: both runs / only A / only B, C: A vs B panel for the visible range\n"
            "  --align step       the same, 0 at each run's first ProfilerStep#N (or --step REGEX)\n"
            "  --step REGEX       with --align step: the iteration marks\n"
            "headless (no terminal needed; for scripts and tests):\n"
            "  --dump             print the final screen as text to stdout\n"
            "  --frames N         render N frames (at least one per key + 1)\n"
            "  --keys KEYS        keys to feed, one per frame: characters, and <Left> <Right> <Up> <Down>\n"
            "                     <S-Left> <S-Right> <S-Up> <S-Down> <PgUp> <PgDn> <Home> <End> <Tab>\n"
            "                     <S-Tab> <Enter> <Esc> <Space> <BS> <F1> <C-l> <lt> <gt> <Click:X,Y>\n"
            "                     <WheelUp:X,Y> <WheelDown:X,Y> <Press:X,Y> <Drag:X,Y> <Release:X,Y>\n"
            "                     <Resize:WxH>\n"
            "  --size WxH         screen size for the headless mode (default 120x40)\n");
    InputOptions_help(out);
}

static bool parse_size(const char *s, int *w, int *h) {
    char x;
    return sscanf(s, "%d%c%d", w, &x, h) == 3 && (x == 'x' || x == 'X') && *w > 0 && *h > 0 && *w <= 1000 &&
           *h <= 1000;
}

/* The load warnings in the status bar: the first line, with a count of the others. */
static void notice_warnings(App *a, char *w) {
    size_t lines = 0;
    for (char *p = w; *p; p++) lines += *p == '\n';
    char *nl = strchr(w, '\n');
    if (nl) *nl = '\0';
    bool warn = !strncmp(w, "warning", 7) || strstr(nl ? nl + 1 : "", "warning");
    if (lines > 1) App_notice(a, warn, "%s (+%zu more)", w, lines - 1);
    else App_notice(a, warn, "%s", w);
}

/* Interactive load: the terminal comes up at once with the loading screen while the
 * trace loads on a thread (tui/loading.c). On success *out holds the app (terminal
 * still active) and the load warnings are in its status bar. Otherwise the terminal
 * is restored and the result is the exit status: 1 after a load error (printed like
 * 'ovtrace stats' does), 0 when q cancelled, 128+signal after Ctrl-C/SIGTERM/SIGHUP. */
static int view_load(InputOptions *in, Caps *caps, const char *title, int throttle_ms, int lazy_mode, int lazy_delay_ms,
                     int lazy_stall_ms, FILE *cache_notes, App **out) {
    *out = NULL;
    if (in->n_files == 0) {
        cli_error("no trace file given");
        return 1;
    }
    if (!Crt_init(caps)) return 1;
    /* -v's cache notes are kept for the end: stderr would draw over the screen */
    LoadOptions lo = InputOptions_loadOptions(in);
    if (in->verbose) lo.cache_log = cache_notes;
    /* many rank files: GPU lanes first for the rank overview, the rest in the background */
    bool lazy = LazyLoad_wanted((const char *const *)in->files, in->n_files, lazy_mode);
    LoadOptions first = lo;
    first.gpu_only = lazy;
    LoadJob *job = LoadJob_new((const char *const *)in->files, in->n_files, &first, *caps, title);
    LoadJob_setThrottleMs(job, throttle_ms); /* the thread starts after the first paint */
    LoadJob_setCollOptions(job, &in->coll);
    int r = LoadJob_runScreen(job);
    if (r != 0 && LoadJob_running(job)) {
        /* cancelled while the loader builds the model, a step that does not poll the
         * cancel request (seconds on a million lanes): quit at once rather than wait. The
         * viewer has written nothing; a snapshot being saved is a process of its own. */
        Crt_done();
        fflush(stdout);
        _exit(r < 0 ? 0 : r);
    }
    App *a = LoadJob_app(job);
    int rc = 0;
    if (r != 0) {
        Crt_done();
        if (a) {
            Trace *t = App_trace(a);
            App_free(a);
            Trace_free(t);
        }
        rc = r < 0 ? 0 : r;
    } else if (!a) {
        Crt_done();
        cli_error("%s", LoadJob_error(job));
        rc = 1;
    } else {
        *out = a;
        LazyLoad_setOptions(a, &lo); /* Enter on a rank of a run summary opens its trace */
        /* a GPU-only model that left nothing out (all events on GPU lanes) is complete */
        if (lazy && App_trace(a)->gpu_only)
            LazyLoad_start(a, (const char *const *)in->files, in->n_files, &lo, lazy_delay_ms, lazy_stall_ms);
        if (LoadJob_warnings(job) && !in->quiet) notice_warnings(a, LoadJob_warnings(job));
    }
    LoadJob_delete(job);
    return rc;
}

/* A range export (`e`, or `export --range`) reopens on its range, marked, so the range
 * panel shows the figures it was exported for. */
static void open_on_recorded_range(App *a) {
    int64_t r0, r1;
    const Trace *t = App_trace(a);
    if (!Export_recordedRange(t, &r0, &r1)) return;
    if (r0 == INT64_MIN) r0 = t->t_min;
    if (r1 == INT64_MAX) r1 = t->t_max;
    if (r1 <= r0) return;
    App_setWindow(a, r0, r1);
    App_setRange(a, r0, r1);
}

enum { VW_DUMP = 100, VW_FRAMES, VW_KEYS, VW_SIZE, VW_RANGE, VW_ALIGN, VW_STEP, VW_ASCII, VW_OSC52, VW_COLOR,
       VW_THROTTLE, VW_FRAME_LOG, VW_LAZY, VW_LAZY_DELAY, VW_LAZY_STALL };

static const OptSpec VIEW_OPTIONS[] = {
    {"--dump", 0, false, VW_DUMP, NULL, false},    {"--frames", 0, true, VW_FRAMES, NULL, false},
    {"--keys", 0, true, VW_KEYS, NULL, false},     {"--size", 0, true, VW_SIZE, NULL, false},
    {"--range", 0, true, VW_RANGE, NULL, false},   {"--align", 0, true, VW_ALIGN, NULL, false},
    {"--step", 0, true, VW_STEP, NULL, false},     {"--ascii", 0, false, VW_ASCII, NULL, false},
    {"--osc52", 0, false, VW_OSC52, NULL, false},  {"--color", 0, true, VW_COLOR, NULL, false},
    {"--colour", 0, true, VW_COLOR, NULL, true},   {"--lazy", 0, true, VW_LAZY, NULL, false},
    /* test and benchmark hooks (docs/testing.md): a loader slowed down so that the
     * loading screen can be watched; a line per painted frame appended to a file */
    {"--debug-load-throttle-ms", 0, true, VW_THROTTLE, NULL, true},
    {"--debug-frame-log", 0, true, VW_FRAME_LOG, NULL, true},
    /* holds the lazy overview's background load back so tests see its loading state */
    {"--debug-lazy-delay-ms", 0, true, VW_LAZY_DELAY, NULL, true},
    /* and keeps it, once the files are read, in a sleep that does not poll the cancel
     * request (as matching the collectives of a big model does not) */
    {"--debug-lazy-stall-ms", 0, true, VW_LAZY_STALL, NULL, true},
    {0},
};
const OptSpec *const VIEW_TABLES[] = {VIEW_OPTIONS, INPUT_OPTIONS, NULL};

typedef struct {
    InputOptions in;
    const char *keys, *range, *color, *align, *step, *frame_log;
    int frames, w, h, throttle_ms, lazy, lazy_delay_ms, lazy_stall_ms; /* lazy: -1 auto, 0 off, 1 on */
    bool dump, ascii, headless;
} ViewArgs;

static int view_opt(void *ctx, const OptSpec *s, const char *v) {
    ViewArgs *A = ctx;
    if (!s || s->id < VW_DUMP) return InputOptions_apply(&A->in, s, v);
    char *end;
    long n;
    switch (s->id) {
    case VW_DUMP: A->dump = A->headless = true; break;
    case VW_FRAMES:
        n = strtol(v, &end, 10);
        if (*end || n < 1 || n > 1000000) {
            cli_error("--frames needs a positive number, got '%s'", v);
            return 2;
        }
        A->frames = (int)n;
        A->headless = true;
        break;
    case VW_KEYS: A->keys = v, A->headless = true; break;
    case VW_SIZE:
        if (!parse_size(v, &A->w, &A->h)) {
            cli_error("--size needs WxH, e.g. 120x40, got '%s'", v);
            return 2;
        }
        A->headless = true;
        break;
    case VW_RANGE: A->range = v; break;
    case VW_ALIGN:
        if (strcmp(v, "start") && strcmp(v, "step")) {
            cli_error("--align takes start or step, got '%s'", v);
            return 2;
        }
        A->align = v;
        break;
    case VW_STEP: A->step = v; break;
    case VW_ASCII: A->ascii = true; break;
    case VW_OSC52: KTable_setOsc52(true); break;
    case VW_COLOR:
        if (strcmp(v, "auto") && strcmp(v, "256") && strcmp(v, "16") && strcmp(v, "none")) {
            cli_error("--color takes auto, 256, 16 or none, got '%s'", v);
            return 2;
        }
        A->color = v;
        break;
    case VW_LAZY:
        if (strcmp(v, "auto") && strcmp(v, "on") && strcmp(v, "off")) {
            cli_error("--lazy takes auto, on or off, got '%s'", v);
            return 2;
        }
        A->lazy = !strcmp(v, "auto") ? -1 : !strcmp(v, "on");
        break;
    case VW_THROTTLE:
    case VW_LAZY_DELAY:
    case VW_LAZY_STALL:
        n = strtol(v, &end, 10);
        if (!*v || *end || n < 0 || n > 60000) {
            cli_error("%s needs milliseconds from 0 to 60000, got '%s'", s->name, v);
            return 2;
        }
        if (s->id == VW_THROTTLE) A->throttle_ms = (int)n;
        else if (s->id == VW_LAZY_DELAY) A->lazy_delay_ms = (int)n;
        else A->lazy_stall_ms = (int)n;
        break;
    case VW_FRAME_LOG: A->frame_log = v; break;
    }
    return 0;
}

int cmd_view(int argc, char **argv) {
    setlocale(LC_ALL, "");
    setlocale(LC_NUMERIC, "C"); /* glyphs follow the locale; numbers (the e key's JSON) do not */
    const char *osc = getenv("OVTRACE_OSC52"); /* documented: README, Environment */
    if (osc && !strcmp(osc, "1")) KTable_setOsc52(true);
    ViewArgs V = {.color = "auto", .w = 120, .h = 40, .lazy = -1};
    InputOptions_init(&V.in);
    InputOptions *const inp = &V.in;
    TuiKey *kv = NULL;
    size_t nk = 0;
    Trace *t = NULL;
    App *a = NULL;
    FILE *notes = NULL; /* -v: the cache notes of an interactive load */
    char *notes_text = NULL;
    size_t notes_len = 0;
    int rc = Cli_parseOptions("view", argc, argv, VIEW_TABLES, view_opt, &V, NULL);
    if (rc) goto out;
    rc = 2;
    if (!InputOptions_needFiles(inp, "view", "ovtrace view [OPTIONS] FILE...")) goto out;
    const char *keys = V.keys, *range = V.range, *color = V.color, *align = V.align, *step = V.step;
    int frames = V.frames, w = V.w, h = V.h;
    bool dump = V.dump, ascii = V.ascii, headless = V.headless;
    Loading_setFrameLog(V.frame_log);
    if (keys) {
        char err[256];
        if (!Keys_parseScript(keys, &kv, &nk, err, sizeof err)) {
            cli_error("--keys: %s", err);
            goto out;
        }
    }
    ColorMode cm = !strcmp(color, "256") ? COLOR_MODE_256 : !strcmp(color, "16") ? COLOR_MODE_16
                 : !strcmp(color, "none") ? COLOR_MODE_NONE : COLOR_MODE_AUTO;
    Caps caps = Crt_detectCaps(cm, ascii);
    char title[128] = "";
    bool dir0 = false;
    struct stat st0;
    if (inp->n_files && stat(inp->files[0], &st0) == 0) dir0 = S_ISDIR(st0.st_mode);
    Title_inputs(title, sizeof title, inp->files, inp->n_files, &dir0);
    if (align) {
        /* two runs: synchronous load (progress on stderr), then alignment */
        if (!(a = ViewCompare_open(inp, align, step, caps))) {
            rc = 1;
            goto out;
        }
        t = App_trace(a);
        CollView_setOptions(a, &inp->coll);
    } else if (headless) {
        /* synchronous load: headless frames stay deterministic */
        t = InputOptions_load(inp);
        if (!t) {
            rc = 1;
            goto out;
        }
        a = App_newMatching(t, caps, title, &inp->coll);
        LoadOptions lo = InputOptions_loadOptions(inp);
        LazyLoad_setOptions(a, &lo); /* Enter on a rank of a run summary opens its trace */
    } else {
        if (inp->verbose) notes = xopen_memstream(&notes_text, &notes_len);
        rc = view_load(inp, &caps, title, V.throttle_ms, V.lazy, V.lazy_delay_ms, V.lazy_stall_ms, notes, &a);
        if (!a) goto out;
        t = App_trace(a);
    }
    if (range) {
        int64_t r0, r1;
        char err[256];
        if (!Time_parseRange(range, t->t_min, &r0, &r1, err, sizeof err)) {
            Crt_done();
            cli_error("--range: %s", err);
            rc = 2;
            goto out;
        }
        if (r0 == INT64_MIN) r0 = t->t_min;
        if (r1 == INT64_MAX) r1 = t->t_max;
        int64_t q0 = r0, q1 = r1;
        int fit = App_clampRange(a, &r0, &r1);
        if (fit < 0) { /* say so: an empty view with no message looks like a broken trace */
            Crt_done();
            cli_rangeOutside(range, t, q0, q1);
            rc = 2;
            goto out;
        }
        if (fit > 0) {
            RangeTexts x = cli_rangeTexts(t, q0, q1);
            App_notice(a, true, "--range %s..%s goes past the trace (0..%s): clamped", x.a0, x.a1, x.span);
        }
        App_setWindow(a, r0, r1);
    } else {
        open_on_recorded_range(a);
    }
    if (headless) rc = App_runHeadless(a, NULL, kv, nk, frames, w, h, dump, stdout);
    else rc = App_runInteractive(a, NULL);
    if (!headless && !LazyLoad_stop(a, LOAD_CANCEL_GRACE_MS)) {
        /* the lazy overview's full load is in a step that does not poll the cancel
         * request (matching the collectives, classifying names: seconds on a big model):
         * the terminal is restored, the viewer has written nothing of its own, so quit
         * without waiting. A snapshot being saved is a process of its own. */
        fflush(stdout);
        _exit(rc);
    }
out:
    if (a && LazyLoad_ownsModel(a)) t = NULL;
    App_free(a); /* joins the background load, which may add a note */
    Trace_free(t);
    if (notes) { /* the terminal is restored: -v's cache notes, as stats -v prints them */
        cli_waitCacheSaves(); /* a detached save's outcome, into the notes */
        fclose(notes);
        fputs(notes_text, stderr);
        free(notes_text);
    }
    free(kv);
    InputOptions_free(inp);
    return rc;
}
