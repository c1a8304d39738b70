/* A fast path's split of one object against the member loop's (JsIndex_reference):
 * the same end and the same members (key and value spans, types, escapes, depth).
 * Include after <cmocka.h>. */
#ifndef OVTRACE_TEST_SAMEMEMBERS_H
#define OVTRACE_TEST_SAMEMEMBERS_H
#include <stdbool.h>
#include <stddef.h>

#include "ovtrace/read/jsonindex.h"

static inline bool same_tok(const Tok *a, const Tok *b) {
    return a->p == b->p && a->n == b->n && a->type == b->type && a->esc == b->esc;
}

/* got[0..ng) ending at after, taken by `who` from the object at q, against the member
 * loop's status st, members want[0..nw) and end wend. */
static inline void assert_members_as_loop(const char *what, const char *who, const char *q, const JsMember *got,
                                          size_t ng, const char *after, JsStatus st, const JsMember *want, size_t nw,
                                          const char *wend) {
    if (st != JS_OK) fail_msg("%s: %s took what the member loop refuses (%d)", what, who, st);
    if (after != wend) fail_msg("%s: ends at %td, the member loop at %td", what, after - q, wend - q);
    if (ng != nw) fail_msg("%s: %zu members, the member loop %zu", what, ng, nw);
    for (size_t i = 0; i < ng; i++)
        if (!same_tok(&got[i].key, &want[i].key) || !same_tok(&got[i].val, &want[i].val) ||
            got[i].depth != want[i].depth)
            fail_msg("%s: member %zu differs", what, i);
}

#endif
