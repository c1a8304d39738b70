/* A frame of the view engine (App_render, app.h): the title, the ruler, the timeline,
 * what the features draw over it, the side panel, the legend and the status line. */
#include <stdio.h>

#include "app.h"
#include "band.h"
#include "lanes_render.h"
#include "ruler.h"
#include "statusbar.h"
#include "feature.h"

void App_render(App *a, Grid *g) {
    Grid_clear(g);
    Layout L = Layout_computeFor(g->w, g->h, !a->v.panel_hidden, Features_panelWidth(a));
    if (!L.too_small) Layout_reserveRight(&L, Features_plotReserve(a, L.plot.w));
    a->layout = L;
    if (L.too_small) {
        char buf[128];
        snprintf(buf, sizeof buf, "terminal too small: %dx%d (ovtrace needs at least %dx%d; q quits)", g->w, g->h,
                 LAYOUT_MIN_W, LAYOUT_MIN_H);
        Grid_text(g, 0, g->h / 2 < g->h ? g->h / 2 : 0, g->w, buf, ROLE_ERROR, ATTR_BOLD);
        return;
    }
    a->v.cols = L.plot.w;
    a->v.rows = L.plot.h;
    View_scrollToLine(&a->v, a->lines.n);
    if (Features_cover(a, g)) return; /* e.g. the help screen */
    Statusbar_title(a, g, L.title);
    Ruler_render(g, L.ruler, (Rect){L.labels.x, L.ruler.y, L.labels.w, 2}, &a->v, a->gl);
    Lanes_render(a, g, L.labels, L.plot);
    Features_render(a, g, &L);
    if (L.panel.w > 0 && L.panel.h > 0) Features_panel(a, g, L.panel, L.panel_right);
    Band_legend(g, L.legend, a->caps, a->gl, Features_legend(a), Features_legendNote(a));
    Statusbar_status(a, g, L.status);
}
