/* Glyph tables. */
#include "theme.h"

static const Glyphs UNICODE_GLYPHS = {
    .unicode = true,
    .hline = 0x2500,       /* ─ */
    .vline = 0x2502,       /* │ */
    .full = 0x2588,        /* █ */
    .cursor_mark = 0x25bc, /* ▼ */
    .tick = 0x2577,        /* ╷ */
    .tick_major = 0x2502,  /* │ */
    .left = {' ', 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589, 0x2588},
    .lower = {' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588},
    .ev_start_part = 0x2590, /* ▐ (used only where reverse video is unavailable) */
    .ev_end_part = 0x258c,   /* ▌ */
    .ev_tiny = 0x2502,       /* │ */
    .band_color = {0x00b7, 0x2588, 0x2588, 0x2588, 0x2588},
    .band_mono = {' ', 0x2591, 0x2592, 0x2588, 0x2584}, /* ' ' ░ ▒ █ ▄ */
    .expanded = 0x25bc,      /* ▼ */
    .collapsed = 0x25b6,     /* ▶ */
    .legend_swatch = 0x2588, /* █ */
    .ellipsis = 0x2026,      /* … */
};

static const Glyphs ASCII_GLYPHS = {
    .unicode = false,
    .hline = '-',
    .vline = '|',
    .full = '=',
    .cursor_mark = 'v',
    .tick = '\'',
    .tick_major = '|',
    .left = {' ', '=', '=', '=', '=', '=', '=', '=', '='},
    .lower = {' ', '.', '.', ':', ':', '+', '+', '#', '#'},
    .ev_start_part = '[',
    .ev_end_part = ']',
    .ev_tiny = '|',
    .band_color = {'.', '#', '#', '#', '#'},
    .band_mono = {'.', '=', '+', '!', 'm'},
    .expanded = '-',
    .collapsed = '+',
    .legend_swatch = '#',
    .ellipsis = '~',
};

const Glyphs *Glyphs_get(bool unicode) { return unicode ? &UNICODE_GLYPHS : &ASCII_GLYPHS; }

const char *BandState_label(BandState s) {
    static const char *L[BAND__COUNT] = {"idle", "compute", "comm hidden", "comm exposed", "memory"};
    return s < BAND__COUNT ? L[s] : "?";
}
