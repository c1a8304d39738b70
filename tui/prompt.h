/* The status line's prompt: a label and the text being typed. The feature that opens
 * it says what Enter does with the text and what Tab does; the engine routes every key
 * to an open prompt (Esc cancels, Backspace, Ctrl-U clears). */
#ifndef OVTRACE_TUI_PROMPT_H
#define OVTRACE_TUI_PROMPT_H
#include <stdbool.h>
#include <stddef.h>

#include "keys.h"

struct App;
typedef void (*PromptFn)(struct App *a, const char *text);

typedef struct {
    bool open;
    char label[352]; /* the export prompt names its filter (a search pattern) */
    char buf[512];
    size_t len;
    PromptFn submit;            /* Enter: the text typed (the prompt is closed by then) */
    void (*tab)(struct App *a); /* Tab; NULL: ignored */
    bool yes_no;                /* a question: y submits "y"; n, Enter and Esc submit "n" */
} Prompt;

/* Opens p with label and a first text. */
void Prompt_open(Prompt *p, const char *label, const char *text, PromptFn submit, void (*tab)(struct App *a));
/* Opens p as a yes/no question: one key answers it (y: "y", else n, Enter or Esc: "n"). */
void Prompt_openYesNo(Prompt *p, const char *label, PromptFn submit);
/* A key typed into the open prompt of a; returns what to redraw. */
unsigned Prompt_key(struct App *a, Prompt *p, const TuiKey *k);

#endif
