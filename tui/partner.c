/* c: from a GPU op to the CPU runtime call that launched it and back (the ac2g flow or
 * the correlation id, Trace_partner). */
#include "app.h"
#include "lanes_render.h"
#include "feature.h"

static unsigned k_partner(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    if (a->v.sel == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no event selected");
        return REDRAW_VIEW | KEEP_MSG;
    }
    size_t p = Trace_partner(a->t, a->v.sel);
    if (p == SIZE_MAX && a->t->gpu_only) {
        App_message(a, ROLE_DIM, "launch partner: CPU lanes still loading (see the title bar)");
        return REDRAW_VIEW;
    }
    if (p == SIZE_MAX) {
        App_message(a, ROLE_ERROR, "no launch partner (no ac2g flow or correlation id)");
        return REDRAW_VIEW | KEEP_MSG;
    }
    const TraceEvent *pe = &a->t->events[p];
    bool to_cpu = !a->t->lanes[pe->lane].gpu;
    App_selectEvent(a, p);
    char name[120];
    Lanes_shortName(Trace_name(a->t, pe), name, sizeof name, a->gl->unicode);
    App_message(a, ROLE_GOOD, "%s %s (c jumps back)", to_cpu ? "launched by" : "launches", name);
    return REDRAW_VIEW | KEEP_MSG;
}

static const KeyBinding PARTNER_KEYS[] = {
    {{'c'}, "c", "GPU op <-> the CPU runtime call that launched it", k_partner, 0},
};
const Feature Partner_feature = {.name = "launch partner", FEATURE_KEYS(PARTNER_KEYS)};
