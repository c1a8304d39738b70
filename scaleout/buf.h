/* A byte buffer the processes of an MPI run exchange their records in: fixed-width
 * little-endian-as-the-host values and length-prefixed strings (the processes of one run
 * share an architecture). A reader past the end or given a bad length reads zeros and
 * sets bad, never beyond the buffer. */
#ifndef OVTRACE_SCALEOUT_BUF_H
#define OVTRACE_SCALEOUT_BUF_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ovtrace/base/alloc.h"

typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static inline void Buf_put(Buf *b, const void *v, size_t n) {
    GROW(b->p, b->cap, b->n + n + 1);
    memcpy(b->p + b->n, v, n);
    b->n += n;
}
static inline void Buf_u8(Buf *b, uint8_t v) { Buf_put(b, &v, 1); }
static inline void Buf_u32(Buf *b, uint32_t v) { Buf_put(b, &v, 4); }
static inline void Buf_i32(Buf *b, int32_t v) { Buf_put(b, &v, 4); }
static inline void Buf_u64(Buf *b, uint64_t v) { Buf_put(b, &v, 8); }
static inline void Buf_i64(Buf *b, int64_t v) { Buf_put(b, &v, 8); }
static inline void Buf_f64(Buf *b, double v) { Buf_put(b, &v, 8); }
static inline void Buf_strn(Buf *b, const char *s, size_t n) {
    Buf_u32(b, (uint32_t)n);
    Buf_put(b, s, n);
}
static inline void Buf_str(Buf *b, const char *s) { Buf_strn(b, s ? s : "", s ? strlen(s) : 0); }

typedef struct {
    const char *p, *end;
    bool bad;
} Rd;

static inline void Rd_get(Rd *r, void *v, size_t n) {
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        memset(v, 0, n);
        return;
    }
    memcpy(v, r->p, n);
    r->p += n;
}
static inline uint8_t Rd_u8(Rd *r) { uint8_t v; Rd_get(r, &v, 1); return v; }
static inline uint32_t Rd_u32(Rd *r) { uint32_t v; Rd_get(r, &v, 4); return v; }
static inline int32_t Rd_i32(Rd *r) { int32_t v; Rd_get(r, &v, 4); return v; }
static inline uint64_t Rd_u64(Rd *r) { uint64_t v; Rd_get(r, &v, 8); return v; }
static inline int64_t Rd_i64(Rd *r) { int64_t v; Rd_get(r, &v, 8); return v; }
static inline double Rd_f64(Rd *r) { double v; Rd_get(r, &v, 8); return v; }
/* A string as a malloc'd, NUL-terminated copy (*len: its length; it may hold NULs). */
static inline char *Rd_str(Rd *r, size_t *len) {
    uint32_t n = Rd_u32(r);
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        r->p = r->end;
        n = 0;
    }
    char *s = xmalloc((size_t)n + 1);
    memcpy(s, r->p, n);
    s[n] = '\0';
    r->p += n;
    if (len) *len = n;
    return s;
}

#endif
