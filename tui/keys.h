/* Keys: terminal-independent key codes (crt.c maps curses codes onto them, the
 * headless mode parses them from a script), and the key table: every feature's
 * bindings (feature.h), each a handler returning what must be redrawn; `?` lists them. */
#ifndef OVTRACE_TUI_KEYS_H
#define OVTRACE_TUI_KEYS_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/tui/viewer.h"

enum {
    TK_NONE = 0,
    TK_TAB = 9,
    TK_CTRL_L = 12,
    TK_ENTER = 13,
    TK_CTRL_U = 21,
    TK_ESC = 27,
    TK_BASE = 0x200000, /* above any Unicode code point */
    TK_LEFT,
    TK_RIGHT,
    TK_UP,
    TK_DOWN,
    TK_SLEFT,
    TK_SRIGHT,
    TK_SUP,
    TK_SDOWN,
    TK_PGUP,
    TK_PGDN,
    TK_HOME,
    TK_END,
    TK_BTAB,
    TK_BACKSPACE,
    TK_DELETE,
    TK_F1,
    TK_RESIZE,
    TK_CLICK,      /* x, y: screen cell */
    TK_WHEEL_UP,   /* x, y */
    TK_WHEEL_DOWN, /* x, y */
    TK_INTERRUPT,  /* SIGINT/SIGTERM/SIGHUP arrived */
    TK_PRESS,      /* x, y: button 1 went down (a click when it comes up there) */
    TK_DRAG,       /* x, y: the mouse moved with button 1 down */
    TK_RELEASE,    /* x, y: button 1 came up */
};

struct TuiKey {
    int code;
    int x, y; /* mouse position; TK_RESIZE: new size */
};

/* What a handler asks for: what to redraw, plus reaction bits. A key of the table
 * clears the status message unless its handler wrote one (App_message) or returns
 * KEEP_MSG, which leaves the message shown before the key. */
enum { REDRAW_NONE = 0, REDRAW_VIEW = 1, REDRAW_FULL = 2, KEEP_MSG = 4 };

struct App;
typedef unsigned (*KeyFn)(struct App *a, const TuiKey *k, int arg);

typedef struct {
    int keys[6];       /* codes, 0-terminated */
    const char *names; /* as shown in help, e.g. "←/h/a" */
    const char *help;
    KeyFn fn;
    int arg;
} KeyBinding;

/* Keys_parseScript: ovtrace/tui/viewer.h. Short name of a code for messages ("Left", "q"). */
const char *Keys_name(int code, char buf[16]);

#endif
