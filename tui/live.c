/* A live session's keys and polling (ovtrace live): the source (TuiSource, app.h) is
 * polled between frames for a new model; F follows the newest data, p / Z freeze the
 * display (the source then hands over its whole buffer), E saves the buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/model/timeunits.h"
#include "app.h"
#include "live.h"
#include "feature.h"

typedef struct {
    bool all_pending; /* frozen, waiting for src->snapshot_all */
} LiveState;

extern const Feature Live_feature;

static LiveState *state(const App *a) { return Feature_state(a, &Live_feature); }

bool Live_allPending(const App *a) { return state(a)->all_pending; }

/* Frozen: asks the source for the whole buffer and takes it when it is ready. */
static void poll_all(App *a, LiveState *s) {
    const TuiSource *src = a->src;
    if (!src || !src->snapshot_all || !a->v.frozen) {
        s->all_pending = false;
        return;
    }
    Trace *all = a->t;
    if (!src->snapshot_all(src->ctx, &all) || !all) {
        s->all_pending = true;
        return;
    }
    s->all_pending = false;
    App_setTrace(a, all); /* everything retained, not only the followed span */
    char span[48];
    Time_format(span, sizeof span, all->t_max - all->t_min);
    App_message(a, ROLE_DIM,
                "display frozen: the whole buffer (%s) can be browsed, 0 fits it; collection goes on "
                "(p or Z resumes)",
                span);
}

/* Between frames: the new model while the display is live, the whole buffer while it
 * is frozen. */
static unsigned live_poll(App *a, void *st) {
    const TuiSource *src = a->src;
    if (!src) return 0;
    if (a->v.frozen && ((LiveState *)st)->all_pending) poll_all(a, st);
    Trace *t = a->t;
    if (src->poll && !a->v.frozen && src->poll(src->ctx, &t) && t) App_setTrace(a, t);
    return POLL_AGAIN;
}

/* F: follow the newest data; p, Z (arg 1): freeze / resume the display. */
static unsigned k_follow(App *a, const TuiKey *k, int arg) {
    (void)k;
    if (!a->src) {
        App_message(a, ROLE_ERROR, "not a live session (follow and freeze need 'ovtrace live')");
        return REDRAW_VIEW;
    }
    if (arg == 0) {
        a->v.follow = !a->v.follow;
        if (a->v.follow) View_setExtent(&a->v, a->v.min_t, a->v.max_t);
        App_message(a, ROLE_DIM, "follow %s", a->v.follow ? "on" : "off");
    } else {
        a->v.frozen = !a->v.frozen;
        if (a->src->set_frozen) a->src->set_frozen(a->src->ctx, a->v.frozen);
        App_message(a, ROLE_DIM, "%s",
                    !a->v.frozen ? "display live"
                    : a->src->snapshot_all
                        ? "display frozen, loading the whole buffer; collection goes on (p or Z resumes)"
                        : "display frozen, collection goes on (p or Z resumes)");
        poll_all(a, state(a)); /* takes the whole buffer at once when the source has it ready */
    }
    return REDRAW_VIEW;
}

/* Space on a lane (not a group header) freezes the display. */
static bool live_activate(App *a, void *st, const TuiKey *k, unsigned *redraw) {
    (void)st;
    if (!a->src || k->code != ' ' || a->lines.v[a->v.line].kind == LINE_GROUP) return false;
    *redraw = k_follow(a, k, 1);
    return true;
}

/* Enter in the E prompt: the source saves its whole buffer to path. */
static void save_submit(App *a, const char *path) {
    if (!path[0]) {
        App_message(a, ROLE_ERROR, "save cancelled: no file name");
        return;
    }
    char msg[256];
    bool ok = a->src && a->src->save && a->src->save(a->src->ctx, path, msg, sizeof msg);
    if (!a->src || !a->src->save) snprintf(msg, sizeof msg, "not a live session");
    App_message(a, ok ? ROLE_GOOD : ROLE_ERROR, "%s", msg);
}

static unsigned k_save(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (!a->src || !a->src->save) {
        App_message(a, ROLE_ERROR, "not a live session (E saves the live buffer; e exports a range)");
        return REDRAW_VIEW;
    }
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32] = "now", name[64];
    if (localtime_r(&now, &tm)) strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, sizeof name, "live-%s.json.zst", stamp);
    Prompt_open(&a->prompt, "save buffer to: ", name, save_submit, NULL);
    return REDRAW_VIEW;
}

static void *live_init(App *a) {
    (void)a;
    return xcalloc(1, sizeof(LiveState));
}

static void live_free(App *a, void *st) {
    (void)a;
    free(st);
}

static const KeyBinding LIVE_KEYS[] = {
    {{'F'}, "F", "live: follow the newest data", k_follow, 0},
    {{'p', 'Z'}, "p Z", "live: freeze / resume the display (collection goes on)", k_follow, 1},
    {{'E'}, "E", "live: save the whole buffer to a file", k_save, 0},
};

const Feature Live_feature = {
    .name = "live",
    FEATURE_KEYS(LIVE_KEYS),
    .init = live_init,
    .free = live_free,
    .poll = live_poll,
    .activate = live_activate,
};
