/* The status line's prompt (prompt.h). */
#include "prompt.h"

#include <stdio.h>
#include <string.h>

#include "grid.h"

void Prompt_open(Prompt *p, const char *label, const char *text, PromptFn submit, void (*tab)(struct App *a)) {
    p->open = true;
    snprintf(p->label, sizeof p->label, "%s", label);
    snprintf(p->buf, sizeof p->buf, "%s", text);
    p->len = strlen(p->buf);
    p->submit = submit;
    p->tab = tab;
    p->yes_no = false;
}

void Prompt_openYesNo(Prompt *p, const char *label, PromptFn submit) {
    Prompt_open(p, label, "", submit, NULL);
    p->yes_no = true;
}

/* The answer to a yes/no question: y or Y yes; n, N, Enter, Esc no; other keys wait. */
static unsigned yes_no_key(struct App *a, Prompt *p, const TuiKey *k) {
    bool yes = k->code == 'y' || k->code == 'Y';
    if (!yes && k->code != 'n' && k->code != 'N' && k->code != TK_ENTER && k->code != TK_ESC) return REDRAW_NONE;
    p->open = false;
    if (p->submit) p->submit(a, yes ? "y" : "n");
    return REDRAW_VIEW;
}

/* A typed character, as UTF-8, while it fits. */
static unsigned type_char(Prompt *p, int code) {
    if (code < 0x20 || code >= TK_BASE || code == 0x7f) return REDRAW_NONE;
    char u[4];
    int n = Utf8_encode((uint32_t)code, u);
    if (p->len + (size_t)n < sizeof p->buf) {
        memcpy(p->buf + p->len, u, (size_t)n);
        p->len += (size_t)n;
        p->buf[p->len] = '\0';
    }
    return REDRAW_VIEW;
}

unsigned Prompt_key(struct App *a, Prompt *p, const TuiKey *k) {
    if (p->yes_no) return yes_no_key(a, p, k);
    switch (k->code) {
    case TK_ESC: p->open = false; return REDRAW_VIEW;
    case TK_BACKSPACE:
        while (p->len > 0) { /* one UTF-8 character */
            unsigned char c = (unsigned char)p->buf[--p->len];
            if ((c & 0xc0) != 0x80) break;
        }
        p->buf[p->len] = '\0';
        return REDRAW_VIEW;
    case TK_CTRL_U:
        p->len = 0;
        p->buf[0] = '\0';
        return REDRAW_VIEW;
    case TK_TAB:
        if (!p->tab) return REDRAW_NONE;
        p->tab(a);
        return REDRAW_VIEW;
    case TK_ENTER:
        p->open = false;
        if (p->submit) p->submit(a, p->buf);
        return REDRAW_VIEW;
    default: return type_char(p, k->code);
    }
}
