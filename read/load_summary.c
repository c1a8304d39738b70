/* A run summary opened as a model (ovtrace/write/summary.h, docs/summary.md): one source
 * per rank (its trace's path, so that the viewer can open it), one GPU lane per device,
 * and per device its band drawn back as events, a column at a time: compute, comm over
 * the hidden part of it and past it for the exposed part, then memory. The comm parts
 * are memcpy-kind events of class comm, so no collective is matched between them; the
 * rank overview's labels come from the summary's figures (Trace.group_summary). */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/model/timeunits.h"
#include "ovtrace/read/args.h"
#include "ovtrace/read/input.h"
#include "ovtrace/read/load.h"

#define MAGIC "\"ovtrace_summary\""

static bool head_is_summary(char *head, ssize_t n) {
    if (n <= 0) return false;
    head[n] = '\0';
    const char *p = head;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    if (*p++ != '{') return false;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return !strncmp(p, MAGIC, sizeof MAGIC - 1);
}

/* A look at the first bytes: a plain file is read as it is (no mapping: every single
 * input is asked, and the loader maps it next), a compressed one through Input. */
bool Load_isSummary(const char *path) {
    if (!Input_canReopen(path)) return false; /* a pipe's bytes are the parser's */
    char head[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    bool gz = n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b;
    bool zst = n >= 4 && !memcmp(head, "\x28\xb5\x2f\xfd", 4);
    if (!gz && !zst) return head_is_summary(head, n);
    char err[256];
    Input *in = Input_open(path, err, sizeof err);
    if (!in) return false;
    n = Input_read(in, head, sizeof head - 1);
    Input_close(in);
    return head_is_summary(head, n);
}

/* The whole (decompressed) file, NUL-terminated; NULL with err. */
static char *read_all(const char *path, size_t *len, char *err, size_t errlen) {
    Input *in = Input_open(path, err, errlen);
    if (!in) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        GROW(buf, cap, n + (1 << 20) + 1);
        ssize_t r = Input_read(in, buf + n, cap - n - 1);
        if (r < 0) {
            snprintf(err, errlen, "%s: read error", path);
            free(buf);
            Input_close(in);
            return NULL;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    Input_close(in);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int hexval(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

typedef struct {
    Trace *t;
    uint32_t lane;
    uint32_t names[3];
    size_t last[3]; /* the lane's last event of each part, to extend (SIZE_MAX: none) */
} Drawer;

/* Appends [s, e) as part k (0 compute, 1 comm, 2 memory), or extends the last one when it
 * ends at s. */
static void part(Drawer *D, int k, int64_t s, int64_t e) {
    if (e <= s) return;
    static const EventKind KIND[3] = {KIND_KERNEL, KIND_MEMCPY, KIND_MEMSET};
    if (D->last[k] != SIZE_MAX) {
        TraceEvent *x = &D->t->events[D->last[k]];
        if (x->ts + x->dur == s) {
            x->dur = e - x->ts;
            return;
        }
    }
    TraceEvent ev = {.ts = s, .dur = e - s, .src = TRACE_NO_SRC, .name = D->names[k], .lane = D->lane, .kind = KIND[k]};
    D->last[k] = Trace_append(D->t, &ev);
}

/* One device's band (hex: four bytes per column) drawn as events. */
static bool draw_band(Drawer *D, const char *hex, int64_t t0, int64_t t1, int cols) {
    if (!hex || strlen(hex) != (size_t)cols * 8) return false;
    for (int k = 0; k < 3; k++) D->last[k] = SIZE_MAX;
    for (int c = 0; c < cols; c++) {
        int64_t a = t0 + (int64_t)((__int128)(t1 - t0) * c / cols), b = t0 + (int64_t)((__int128)(t1 - t0) * (c + 1) / cols);
        int64_t v[4];
        for (int k = 0; k < 4; k++) {
            int hi = hexval(hex[c * 8 + k * 2]), lo = hexval(hex[c * 8 + k * 2 + 1]);
            if (hi < 0 || lo < 0) return false;
            v[k] = (int64_t)((__int128)(b - a) * (hi * 16 + lo) / 255);
        }
        int64_t comp = v[0], hid = v[1], exp = v[2], mem = v[3];
        int64_t x = a;
        part(D, 0, x, x + comp + hid < b ? x + comp + hid : b);
        x += comp;
        part(D, 1, x < b ? x : b, x + hid + exp < b ? x + hid + exp : b);
        x += hid + exp;
        part(D, 2, x < b ? x : b, x + mem < b ? x + mem : b);
    }
    return true;
}

/* A device's overview label as the summary gives it, until the groups exist. */
typedef struct {
    uint32_t source;
    int64_t device;
    GroupSummary fig;
    size_t wait_first; /* its waits in Labels.wait (fig.wait is set once they are copied) */
} DeviceLabel;

typedef struct {
    DeviceLabel *v;
    size_t n, cap;
    int64_t *wait; /* (start, end) pairs of every rank's comm waits */
    size_t n_wait, cap_wait;
} Labels;

/* A count or a time of the label: a non-negative whole number, or -1 when absent
 * (format 1); false when present but not one. */
static bool label_value(const cJSON *o, const char *key, int64_t *out) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = -1;
    if (!x) return true;
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 9e18) return false;
    *out = (int64_t)x->valuedouble;
    return true;
}

/* A rank's "comm" entries [name, start_ns, end_ns, wait_ns, transfer_ns] as the wait
 * part of each, [start, start + wait) within the kernel (Coll_waitPart), appended to
 * L->wait. Epoch-scale starts come through cJSON's double (within 256 ns): the overview
 * draws them at its column resolution, microseconds at the least. Absent (format 1
 * without waits) is none; present and malformed fails the summary. */
static bool add_waits(const cJSON *r, Labels *L) {
    const cJSON *comm = cJSON_GetObjectItemCaseSensitive(r, "comm"), *c;
    if (!comm) return true;
    if (!cJSON_IsArray(comm)) return false;
    cJSON_ArrayForEach(c, comm) {
        const cJSON *s = cJSON_GetArrayItem(c, 1), *e = cJSON_GetArrayItem(c, 2), *w = cJSON_GetArrayItem(c, 3);
        if (!cJSON_IsArray(c) || !cJSON_IsNumber(s) || !cJSON_IsNumber(e) || !cJSON_IsNumber(w)) return false;
        double sd = s->valuedouble, ed = e->valuedouble, wd = w->valuedouble;
        if (!(sd >= -9e18 && sd <= 9e18 && ed >= sd && ed <= 9e18 && wd >= 0 && wd <= 9e18)) return false;
        int64_t a = (int64_t)sd, b = (int64_t)ed, wn = (int64_t)wd;
        if (wn <= 0) continue;
        GROW(L->wait, L->cap_wait, L->n_wait + 2);
        L->wait[L->n_wait++] = a;
        L->wait[L->n_wait++] = wn < b - a ? a + wn : b;
    }
    return true;
}

static bool add_rank(Trace *t, const cJSON *r, const uint32_t *names, int64_t t0, int64_t t1, int cols, Labels *L) {
    const cJSON *rank = cJSON_GetObjectItemCaseSensitive(r, "rank"), *path = cJSON_GetObjectItemCaseSensitive(r, "path");
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(r, "devices");
    int64_t last;
    if (!cJSON_IsNumber(rank) || !cJSON_IsString(path) || !cJSON_IsArray(devs) || !label_value(r, "arrived_last", &last))
        return false;
    uint32_t src = Trace_addSource(t, path->valuestring);
    t->sources[src].rank = (int32_t)rank->valuedouble;
    const cJSON *d;
    cJSON_ArrayForEach(d, devs) {
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(d, "device"), *band = cJSON_GetObjectItemCaseSensitive(d, "band");
        int64_t exposed;
        if (!cJSON_IsNumber(dev) || !cJSON_IsString(band) || !label_value(d, "run_exposed_comm_ns", &exposed))
            return false;
        int64_t id = (int64_t)dev->valuedouble;
        Drawer D = {t, Trace_gpuLane(t, src, id, 0, id, 0), {names[0], names[1], names[2]}, {0, 0, 0}};
        if (!draw_band(&D, band->valuestring, t0, t1, cols)) return false;
        GROW(L->v, L->cap, L->n + 1);
        L->v[L->n++] = (DeviceLabel){src, id, {exposed, last, NULL, 0}, 0};
    }
    /* the waits go to the rank's device when it has one; with several the summary
     * does not say which ran a comm kernel, so none is marked */
    size_t first = L->n_wait, n_dev = (size_t)cJSON_GetArraySize(devs);
    if (!add_waits(r, L)) return false;
    if (n_dev == 1) {
        L->v[L->n - 1].wait_first = first;
        L->v[L->n - 1].fig.n_wait = (L->n_wait - first) / 2;
    }
    return true;
}

static int cmp_label(const void *x, const void *y) {
    const DeviceLabel *a = x, *b = y;
    if (a->source != b->source) return a->source < b->source ? -1 : 1;
    return a->device < b->device ? -1 : a->device > b->device;
}

/* Trace.group_summary from the devices' labels, once the groups are ordered (a search
 * per group: thousands of ranks). */
static void set_labels(Trace *t, Labels *L) {
    qsort(L->v, L->n, sizeof *L->v, cmp_label);
    /* one block, freed with group_summary: the labels, then the wait pairs they point at */
    size_t head = (t->n_groups + 1) * sizeof *t->group_summary;
    t->group_summary = xcalloc(1, head + L->n_wait * sizeof *L->wait);
    int64_t *wait = (int64_t *)(void *)((char *)t->group_summary + head);
    if (L->n_wait) memcpy(wait, L->wait, L->n_wait * sizeof *L->wait);
    for (uint32_t g = 0; g < t->n_groups; g++) {
        DeviceLabel key = {t->groups[g].source, t->groups[g].id, {0, 0, NULL, 0}, 0};
        const DeviceLabel *f = t->groups[g].gpu && L->n ? bsearch(&key, L->v, L->n, sizeof *L->v, cmp_label) : NULL;
        t->group_summary[g] = f ? f->fig : (GroupSummary){-1, -1, NULL, 0};
        if (f && f->fig.n_wait) t->group_summary[g].wait = wait + f->wait_first;
    }
}

/* t0_ns and t1_ns as their text reads, exactly: epoch-scale ns do not fit a double
 * (cJSON's value is off by up to 128 ns). The first of each key, the one cJSON finds. */
typedef struct {
    int64_t v[2];
    bool seen[2], ok[2];
} SummaryTimes;

static void summary_time(void *ctx, const char *key, const char *vp, const char *vq) {
    SummaryTimes *x = ctx;
    int k = !strcmp(key, "t0_ns") ? 0 : !strcmp(key, "t1_ns") ? 1 : -1;
    if (k < 0 || x->seen[k]) return;
    x->seen[k] = true;
    x->ok[k] = Time_parseDecimal(vp, (size_t)(vq - vp), 0, &x->v[k]);
}

Trace *Load_summaryFile(const char *path, char *err, size_t errlen) {
    size_t len;
    char *text = read_all(path, &len, err, errlen);
    if (!text) return NULL;
    cJSON *root = cJSON_ParseWithLength(text, len);
    SummaryTimes tm = {{0, 0}, {false, false}, {false, false}};
    char serr[128];
    bool times = root && Args_members(text, len, summary_time, &tm, serr, sizeof serr) && tm.ok[0] && tm.ok[1];
    free(text);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "ovtrace_summary");
    const cJSON *t0 = cJSON_GetObjectItemCaseSensitive(root, "t0_ns"), *t1 = cJSON_GetObjectItemCaseSensitive(root, "t1_ns");
    const cJSON *cols = cJSON_GetObjectItemCaseSensitive(root, "columns"), *ranks = cJSON_GetObjectItemCaseSensitive(root, "ranks");
    if (!cJSON_IsNumber(fmt) || fmt->valueint < 1 || fmt->valueint > SUMMARY_FORMAT) {
        snprintf(err, errlen, "%s: not an ovtrace summary of format 1 to %d", path, SUMMARY_FORMAT);
        cJSON_Delete(root);
        return NULL;
    }
    if (!times || !cJSON_IsNumber(t0) || !cJSON_IsNumber(t1) || !cJSON_IsNumber(cols) || cols->valueint < 1 ||
        cols->valueint > 65536 || !cJSON_IsArray(ranks)) {
        snprintf(err, errlen, "%s: a summary needs t0_ns, t1_ns, columns and ranks", path);
        cJSON_Delete(root);
        return NULL;
    }
    int64_t a = tm.v[0], b = tm.v[1];
    if (b <= a) b = a + 1;
    Trace *t = Trace_new();
    uint32_t names[3] = {StrTab_intern(t->strings, "compute (summary)", 17), StrTab_intern(t->strings, "comm (summary)", 14),
                         StrTab_intern(t->strings, "memory (summary)", 16)};
    const cJSON *r;
    bool ok = true;
    Labels L = {0};
    cJSON_ArrayForEach(r, ranks) if (ok) ok = add_rank(t, r, names, a, b, cols->valueint, &L);
    cJSON_Delete(root);
    if (!ok || !t->n_sources) {
        snprintf(err, errlen, "%s: a rank of the summary is malformed", path);
        free(L.v);
        free(L.wait);
        Trace_free(t);
        return NULL;
    }
    Trace_finish(t);
    set_labels(t, &L);
    free(L.v);
    free(L.wait);
    static const EventClass CLS[3] = {CLASS_COMPUTE, CLASS_COMM, CLASS_MEMORY};
    for (size_t i = 0; i < t->n_events; i++)
        for (int k = 0; k < 3; k++)
            if (t->events[i].name == names[k]) t->events[i].cls = CLS[k];
    t->summary = true;
    return t;
}
