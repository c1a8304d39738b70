/* Kernel name grouping keys: demangled names lose template arguments, parameter lists,
 * clone suffixes and the return type; Itanium mangled names (_Z...) are read just far
 * enough to rebuild the qualified name. */
#include "ovtrace/analysis/kname.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "ovtrace/base/alloc.h"

typedef struct {
    char *s;
    size_t n, cap;
} Buf;

static void put(Buf *b, const char *s, size_t n) {
    GROW(b->s, b->cap, b->n + n + 1);
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

/* <length><identifier>: returns bytes consumed, 0 if malformed. */
static size_t source_name(const char *p, const char **id, size_t *len) {
    size_t n = 0, i = 0;
    while (isdigit((unsigned char)p[i])) {
        n = n * 10 + (size_t)(p[i] - '0');
        if (n > 4096) return 0;
        i++;
    }
    if (i == 0 || n == 0 || strnlen(p + i, n) < n) return 0;
    *id = p + i;
    *len = n;
    return i + n;
}

static void put_component(Buf *b, const char *id, size_t len) {
    if (b->n) put(b, "::", 2);
    /* g++ and nvcc name anonymous namespaces _GLOBAL__N_<n> */
    if (len >= 11 && !strncmp(id, "_GLOBAL__N_", 11)) put(b, "(anonymous namespace)", 21);
    else put(b, id, len);
}

/* The qualified name of an Itanium mangled symbol, or false when the form is not one
 * kernels take (nested or unscoped source names, optionally after St). */
static bool demangle_name(const char *p, Buf *b) {
    if (strncmp(p, "_Z", 2)) return false;
    p += 2;
    bool nested = *p == 'N';
    if (nested) {
        p++;
        while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O') p++;
    }
    if (p[0] == 'S' && p[1] == 't') {
        put(b, "std", 3);
        p += 2;
    }
    for (;;) {
        const char *id;
        size_t len, used = source_name(p, &id, &len);
        if (!used) break;
        put_component(b, id, len);
        p += used;
        if (!nested) break;
        if (*p == 'I') break; /* template arguments of the last component: dropped */
    }
    return b->n > 0 && b->s[b->n - 1] != ':';
}

/* Length of an operator token at p ("operator" already copied), so that the '<' of
 * operator< or the "()" of operator() are not read as brackets. */
static size_t operator_token(const char *p) {
    if (p[0] == '(' && p[1] == ')') return 2;
    size_t n = 0;
    while (p[n] && strchr("<>=!+-*/%^&|~[]", p[n]) && n < 3) n++;
    return n;
}

/* Removes <...>, (...) other than "(anonymous namespace)", and " [clone ...]". */
static void strip_brackets(const char *s, Buf *b) {
    int angle = 0, paren = 0, square = 0;
    for (const char *p = s; *p;) {
        bool top = !angle && !paren && !square;
        if (top && !strncmp(p, "operator", 8) && !isalnum((unsigned char)p[8]) && p[8] != '_') {
            size_t k = 8;
            while (p[k] == ' ') k++;
            k += operator_token(p + k);
            put(b, p, k);
            p += k;
            continue;
        }
        if (top && !strncmp(p, "(anonymous namespace)", 21)) {
            put(b, p, 21);
            p += 21;
            continue;
        }
        char c = *p++;
        if (c == '<' && !paren && !square) angle++;
        else if (c == '>' && angle && !paren && !square) angle--;
        else if (c == '(' && !square) paren++;
        else if (c == ')' && paren && !square) paren--;
        else if (c == '[' && !strncmp(p, "clone", 5) && !angle && !paren) square++;
        else if (c == ']' && square) square--;
        else if (!angle && !paren && !square) put(b, &c, 1);
    }
}

static bool is_qualifier(const char *s, size_t n) {
    static const char *const Q[] = {"const", "volatile", "&", "&&", "noexcept"};
    for (size_t i = 0; i < sizeof Q / sizeof Q[0]; i++)
        if (strlen(Q[i]) == n && !strncmp(s, Q[i], n)) return true;
    return false;
}

char *KernelName_normalize(const char *name) {
    Buf b = {0};
    put(&b, "", 0);
    const char *p = name;
    while (*p == ' ') p++;
    if (demangle_name(p, &b)) return b.s;
    b.n = 0;
    b.s[0] = '\0';
    strip_brackets(p, &b);
    /* the last space-separated token, skipping trailing qualifiers, drops the return
     * type ("void ns::k" -> "ns::k"); "(anonymous namespace)" keeps its space */
    size_t end = b.n;
    for (;;) {
        while (end && b.s[end - 1] == ' ') end--;
        size_t start = end;
        while (start && (b.s[start - 1] != ' ' || (start >= 10 && !strncmp(b.s + start - 10, "anonymous ", 10))))
            start--;
        if (start < end && is_qualifier(b.s + start, end - start) && start > 0) {
            end = start;
            continue;
        }
        if (start == end) break;
        memmove(b.s, b.s + start, end - start);
        b.n = end - start;
        b.s[b.n] = '\0';
        return b.s;
    }
    /* nothing left (a name that is all brackets): keep the trimmed original */
    free(b.s);
    size_t n = strlen(p);
    while (n && p[n - 1] == ' ') n--;
    return xstrndup(p, n);
}
