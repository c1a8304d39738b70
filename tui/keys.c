/* Key names and key scripts (keys.h). */
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovtrace/base/alloc.h"
#include "grid.h"

static const struct {
    const char *name;
    int code;
} NAMES[] = {
    {"Left", TK_LEFT},     {"Right", TK_RIGHT},   {"Up", TK_UP},       {"Down", TK_DOWN},   {"S-Left", TK_SLEFT},
    {"S-Right", TK_SRIGHT}, {"S-Up", TK_SUP},     {"S-Down", TK_SDOWN}, {"PgUp", TK_PGUP},   {"PgDn", TK_PGDN},
    {"Home", TK_HOME},     {"End", TK_END},       {"Tab", TK_TAB},     {"S-Tab", TK_BTAB},  {"Enter", TK_ENTER},
    {"Esc", TK_ESC},       {"Space", ' '},        {"BS", TK_BACKSPACE}, {"Del", TK_DELETE}, {"F1", TK_F1},
    {"lt", '<'},           {"gt", '>'},           {"Resize", TK_RESIZE}, {"Click", TK_CLICK},
    {"WheelUp", TK_WHEEL_UP}, {"WheelDown", TK_WHEEL_DOWN}, {"Press", TK_PRESS}, {"Drag", TK_DRAG},
    {"Release", TK_RELEASE},
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
    bool positioned = k->code == TK_CLICK || k->code == TK_WHEEL_UP || k->code == TK_WHEEL_DOWN ||
                      k->code == TK_RESIZE || k->code == TK_PRESS || k->code == TK_DRAG || k->code == TK_RELEASE;
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
