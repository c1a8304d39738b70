/* Where everything goes on screen. */
#include "layout.h"

Layout Layout_compute(int w, int h, bool panel_visible) { return Layout_computeFor(w, h, panel_visible, 0); }

Layout Layout_computeFor(int w, int h, bool panel_visible, int panel_need) {
    Layout L = {0};
    if (w < LAYOUT_MIN_W || h < LAYOUT_MIN_H) {
        L.too_small = true;
        L.status = (Rect){0, h - 1, w, 1};
        return L;
    }
    L.title = (Rect){0, 0, w, 1};
    L.status = (Rect){0, h - 1, w, 1};
    L.legend = (Rect){0, h - 2, w, 1};
    int label_w = w >= 200 ? 24 : w >= 120 ? 20 : 16;
    int body_top = 3, body_bottom = h - 2; /* exclusive */
    int plot_right = w;                    /* exclusive */
    if (panel_visible) {
        int pw = w / 4;
        if (pw < 48) pw = 48;
        if (pw > 72) pw = 72;
        if (panel_need + 3 > pw) pw = panel_need + 3; /* the frame takes 3 columns */
        if (w >= 160 && pw <= w / 2) {
            L.panel = (Rect){w - pw, 1, pw, body_bottom - 1};
            L.panel_right = true;
            plot_right = w - pw;
        } else {
            int ph = h >= 40 ? 14 : h >= 30 ? 10 : 9;
            L.panel = (Rect){0, body_bottom - ph, w, ph};
            body_bottom -= ph;
        }
    }
    L.labels = (Rect){0, body_top, label_w, body_bottom - body_top};
    L.plot = (Rect){label_w + 1, body_top, plot_right - label_w - 1, body_bottom - body_top};
    L.ruler = (Rect){L.plot.x, 1, L.plot.w, 2};
    return L;
}

bool Layout_reserveRight(Layout *L, int cols) {
    if (L->too_small || cols <= 0 || L->plot.w - cols - 1 < LAYOUT_MIN_PLOT) return false;
    L->plot.w -= cols + 1;
    L->ruler.w = L->plot.w;
    L->values = (Rect){L->plot.x + L->plot.w + 1, L->ruler.y, cols, L->plot.y + L->plot.h - L->ruler.y};
    return true;
}
