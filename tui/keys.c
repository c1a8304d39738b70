/* Key routing: an open prompt, then the features that take keys before the table
 * (later ones first), then the key table: every feature's bindings in registry order.
 * Also the engine's own keys (redraw, resize, quit), key names and key scripts. Nothing
 * here draws or touches the terminal. */
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "app.h"
#include "feature.h"

/* ---- the engine's own keys: redraw, resize, quit (listed last by ?) ---- */

static unsigned k_quit(App *a, const TuiKey *k, int arg) {
    (void)k;
    (void)arg;
    a->quit = true;
    return REDRAW_NONE;
}

static unsigned k_redraw(App *a, const TuiKey *k, int arg) {
    (void)a;
    (void)k;
    (void)arg;
    return REDRAW_FULL;
}

static unsigned k_resize(App *a, const TuiKey *k, int arg) {
    (void)a;
    (void)k;
    (void)arg;
    return REDRAW_FULL;
}

static const KeyBinding SESSION_KEYS[] = {
    {{TK_CTRL_L}, "Ctrl-L", "redraw the screen", k_redraw, 0},
    {{TK_RESIZE}, "(resize)", "the layout follows the terminal (min 80x24)", k_resize, 0},
    {{'q', 'Q'}, "q", "quit", k_quit, 0},
};
const Feature Session_feature = {.name = "session", FEATURE_KEYS(SESSION_KEYS)};

size_t Keys_count(void) {
    size_t n = 0;
    for (size_t f = 0; f < N_FEATURES; f++) n += FEATURES[f]->n_keys;
    return n;
}

const KeyBinding *Keys_at(size_t i) {
    for (size_t f = 0; f < N_FEATURES; f++) {
        if (i < FEATURES[f]->n_keys) return &FEATURES[f]->keys[i];
        i -= FEATURES[f]->n_keys;
    }
    return NULL;
}

const KeyBinding *Keys_lookup(int code) {
    for (size_t f = 0; f < N_FEATURES; f++)
        for (size_t i = 0; i < FEATURES[f]->n_keys; i++)
            for (int j = 0; j < 6 && FEATURES[f]->keys[i].keys[j]; j++)
                if (FEATURES[f]->keys[i].keys[j] == code) return &FEATURES[f]->keys[i];
    return NULL;
}

unsigned Keys_dispatch(App *a, const TuiKey *k) {
    if (k->code == TK_INTERRUPT) {
        a->quit = true;
        return REDRAW_NONE;
    }
    if (a->prompt.open && k->code != TK_RESIZE) return Prompt_key(a, &a->prompt, k);
    unsigned r;
    if (Features_key(a, k, &r)) return r; /* the help screen, the kernel table open, ... */
    const KeyBinding *b = Keys_lookup(k->code);
    if (!b) {
        char nm[16];
        App_message(a, ROLE_DIM, "key %s is not bound (? lists the keys)", Keys_name(k->code, nm));
        return REDRAW_VIEW;
    }
    return Keys_apply(a, b, k);
}

unsigned Keys_apply(App *a, const KeyBinding *b, const TuiKey *k) {
    unsigned said = a->msg_seq;
    unsigned r = b->fn(a, k, b->arg);
    if (!(r & KEEP_MSG) && a->msg_seq == said) a->msg[0] = '\0'; /* an older message is stale now */
    return r;
}

/* ---- key names and scripts ---- */

static const struct {
    const char *name;
    int code;
} NAMES[] = {
    {"Left", TK_LEFT},     {"Right", TK_RIGHT},   {"Up", TK_UP},       {"Down", TK_DOWN},   {"S-Left", TK_SLEFT},
    {"S-Right", TK_SRIGHT}, {"S-Up", TK_SUP},     {"S-Down", TK_SDOWN}, {"PgUp", TK_PGUP},   {"PgDn", TK_PGDN},
    {"Home", TK_HOME},     {"End", TK_END},       {"Tab", TK_TAB},     {"S-Tab", TK_BTAB},  {"Enter", TK_ENTER},
    {"Esc", TK_ESC},       {"Space", ' '},        {"BS", TK_BACKSPACE}, {"Del", TK_DELETE}, {"F1", TK_F1},
    {"lt", '<'},           {"gt", '>'},           {"Resize", TK_RESIZE}, {"Click", TK_CLICK},
    {"WheelUp", TK_WHEEL_UP}, {"WheelDown", TK_WHEEL_DOWN},
};

const char *Keys_name(int code, char buf[16]) {
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (NAMES[i].code == code) return NAMES[i].name;
    if (code > 0 && code < 27) snprintf(buf, 16, "C-%c", 'a' + code - 1);
    else if (code >= 0x20 && code < 0x7f) snprintf(buf, 16, "%c", code);
    else snprintf(buf, 16, "#%x", (unsigned)code);
    return buf;
}

/* The code of a key name: C-x (Ctrl+letter) or one of NAMES; 0 if none. */
static int code_of(const char *name) {
    if (!strncmp(name, "C-", 2) && strlen(name) == 3 && name[2] >= 'a' && name[2] <= 'z') return name[2] - 'a' + 1;
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(name, NAMES[i].name)) return NAMES[i].code;
    return 0;
}

/* <Name> or <Name:X,Y> (text: what is between < and >) into *k; false with a message. */
static bool parse_named(const char *text, size_t len, TuiKey *k, char *err, size_t errlen) {
    char name[64];
    memcpy(name, text, len);
    name[len] = '\0';
    char *colon = strchr(name, ':');
    if (colon) *colon = '\0';
    *k = (TuiKey){code_of(name), 0, 0};
    if (!k->code) {
        snprintf(err, errlen, "unknown key <%s> (see 'ovtrace view --help')", name);
        return false;
    }
    bool positioned = k->code == TK_CLICK || k->code == TK_WHEEL_UP || k->code == TK_WHEEL_DOWN || k->code == TK_RESIZE;
    if (!colon && positioned) {
        snprintf(err, errlen, "key <%s> needs a position: <%s:X,Y>", name, name);
        return false;
    }
    char sep;
    if (colon && (sscanf(colon + 1, "%d%c%d", &k->x, &sep, &k->y) != 3 || (sep != ',' && sep != 'x'))) {
        snprintf(err, errlen, "bad key <%s:%s>: expected <%s:X,Y>", name, colon + 1, name);
        return false;
    }
    return true;
}

bool Keys_parseScript(const char *s, TuiKey **out, size_t *n, char *err, size_t errlen) {
    size_t cnt = 0;
    TuiKey *v = xcalloc(strlen(s) + 1, sizeof *v);
    while (*s) {
        const char *e = *s == '<' ? strchr(s, '>') : NULL;
        size_t len = e ? (size_t)(e - s - 1) : 0;
        if (len > 0 && len < 64) { /* else a literal '<' */
            if (!parse_named(s + 1, len, &v[cnt++], err, errlen)) {
                free(v);
                return false;
            }
            s = e + 1;
            continue;
        }
        uint32_t cp = Utf8_decode(&s);
        v[cnt++] = (TuiKey){(int)(cp == '\n' ? TK_ENTER : cp), 0, 0};
    }
    *out = v;
    *n = cnt;
    return true;
}
