/* Classification. Names are matched once per distinct name (the regexes are POSIX
 * extended, compiled once), so a 10M-event trace costs a few thousand regexec calls. */
#include "ovtrace/model/classify.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ovtrace/base/alloc.h"
#include "ovtrace/base/regex.h"
#include "ovtrace/model/parfor.h"

typedef enum { RULE_COMM, RULE_NOT_COMM, RULE_STREAM } RuleKind;

typedef struct {
    RuleKind kind;
    regex_t re;
    char *text;
} Rule;

struct CommRules {
    Rule *rules;
    size_t n, cap;
};

/* NCCL/RCCL kernels; DeepEP's communication kernels (internode, intranode and
 * low-latency dispatch/combine and their notify phases), but not its layout kernel
 * (get_dispatch_layout computes routing on the SMs: compute). */
static const char *DEFAULT_RULES[] = {
    "comm ^(void )?(nccl|rccl)",
    "comm (^|[^A-Za-z_])(ncclKernel|ncclDevKernel|rcclKernel)",
    "comm (dpsk::ep|deep_ep)::[A-Za-z_]+::(dispatch|combine|notify_dispatch|cached_notify|notify_combine|clean_low_latency_buffer)[<(]",
    "comm (dpsk::ep|deep_ep)::[A-Za-z_]+::(low_latency_)?(dispatch|combine)(_send|_recv)?[<(]",
    /* Collectives over symmetric / peer-mapped memory, which run on the SMs without
     * NCCL: PyTorch SymmMem (multimem_all_reduce_kernel, one_shot_all_reduce_kernel,
     * two_shot_all_reduce_kernel, multimem_all_gather_kernel, ...), vLLM/SGLang custom
     * all-reduce (cross_device_reduce_1stage/2stage), TensorRT-LLM/FlashInfer one/two-shot
     * and Lamport all-reduce (oneShotAllReduceKernel, allreduce_fusion_kernel_oneshot_lamport).
     * Anchored on the collective's name, so reduce_kernel or cub::DeviceReduceKernel stay
     * compute. */
    "comm (^|[^A-Za-z0-9])multimem_[A-Za-z0-9_]*(all_reduce|all_gather|reduce_scatter|reduce|broadcast)",
    "comm (^|[^A-Za-z0-9])(one|two)_shot_[A-Za-z0-9_]*(all_reduce|allreduce|all_gather|reduce_scatter)",
    "comm (^|[^A-Za-z0-9_])(one|two)Shot(AllReduce|AllGather|ReduceScatter)",
    "comm (^|[^A-Za-z0-9_])cross_device_reduce_[A-Za-z0-9_]*[12]stage",
    "comm (^|[^A-Za-z0-9_])allreduce_fusion_kernel",
    "comm ([Aa]ll_?[Rr]educe|allreduce)[A-Za-z0-9_]*[Ll]amport|[Ll]amport[A-Za-z0-9_]*([Aa]ll_?[Rr]educe|allreduce)",
};

CommRules *CommRules_empty(void) { return xcalloc(1, sizeof(CommRules)); }

CommRules *CommRules_default(void) {
    CommRules *r = CommRules_empty();
    char err[256];
    for (size_t i = 0; i < sizeof DEFAULT_RULES / sizeof DEFAULT_RULES[0]; i++)
        if (!CommRules_addLine(r, DEFAULT_RULES[i], err, sizeof err)) {
            fprintf(stderr, "ovtrace: built-in rule broken: %s\n", err);
            abort();
        }
    return r;
}

void CommRules_free(CommRules *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) {
        regfree(&r->rules[i].re);
        free(r->rules[i].text);
    }
    free(r->rules);
    free(r);
}

bool CommRules_addLine(CommRules *r, const char *line, char *err, size_t errlen) {
    while (isspace((unsigned char)*line)) line++;
    if (!*line || *line == '#') return true;
    static const struct { const char *word; RuleKind k; } W[] = {
        {"comm-stream", RULE_STREAM}, {"not-comm", RULE_NOT_COMM}, {"comm", RULE_COMM}};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++) {
        size_t n = strlen(W[i].word);
        if (strncmp(line, W[i].word, n) || !isspace((unsigned char)line[n])) continue;
        const char *re = line + n;
        while (isspace((unsigned char)*re)) re++;
        size_t len = strlen(re);
        while (len && isspace((unsigned char)re[len - 1])) len--;
        char *text = xstrndup(re, len);
        GROW(r->rules, r->cap, r->n + 1);
        Rule *rule = &r->rules[r->n];
        if (!Regex_compile(&rule->re, text, REG_EXTENDED | REG_NOSUB, "bad regex", err, errlen)) {
            free(text);
            return false;
        }
        rule->kind = W[i].k;
        rule->text = text;
        r->n++;
        return true;
    }
    snprintf(err, errlen, "bad rule '%s': expected 'comm REGEX', 'not-comm REGEX' or 'comm-stream REGEX'", line);
    return false;
}

/* Opens a rules file for reading: a regular file of at most RULES_MAX bytes. The
 * open does not wait (O_NONBLOCK: a FIFO there would hang every command) and
 * anything but a regular file is refused: /dev/zero never ends, a directory reads as
 * nothing. NULL with err set; *missing when the file does not exist. */
#define RULES_MAX (1u << 20)
static FILE *rules_open(const char *path, bool *missing, char *err, size_t errlen) {
    *missing = false;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *missing = errno == ENOENT;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *why = fstat(fd, &st) != 0      ? strerror(errno)
                      : !S_ISREG(st.st_mode)   ? "not a regular file (a rules file is a text file)"
                      : st.st_size > RULES_MAX ? "larger than 1 MB (a rules file is a few lines)"
                                               : NULL;
    FILE *f = why ? NULL : fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, why ? why : strerror(errno));
        close(fd);
    }
    return f;
}

static bool rules_read(CommRules *r, FILE *f, const char *path, char *err, size_t errlen) {
    char line[4096], msg[300];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strcspn(line, "\r\n");
        if (!line[n] && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, ln, sizeof line - 2);
            return false;
        }
        line[n] = '\0';
        if (!CommRules_addLine(r, line, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%d: %s", path, ln, msg);
            return false;
        }
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        return false;
    }
    return true;
}

bool CommRules_loadFile(CommRules *r, const char *path, char *err, size_t errlen) {
    bool missing;
    FILE *f = rules_open(path, &missing, err, errlen);
    if (!f) return false;
    bool ok = rules_read(r, f, path, err, errlen);
    fclose(f);
    return ok;
}

bool CommRules_loadUserConfig(CommRules *r, const char *rules_file, const char *xdg, const char *home, char *err,
                              size_t errlen) {
    if (rules_file && *rules_file) return CommRules_loadFile(r, rules_file, err, errlen);
    char path[1024];
    if (xdg && *xdg) snprintf(path, sizeof path, "%s/ovtrace/rules", xdg);
    else if (home && *home) snprintf(path, sizeof path, "%s/.config/ovtrace/rules", home);
    else return true;
    bool missing;
    FILE *f = rules_open(path, &missing, err, errlen);
    if (!f) return missing; /* optional: only a file that is there but unusable is an error */
    bool ok = rules_read(r, f, path, err, errlen);
    fclose(f);
    return ok;
}

bool CommRules_nameIsComm(const CommRules *r, const char *name) {
    bool comm = false;
    for (size_t i = 0; i < r->n; i++) {
        const Rule *u = &r->rules[i];
        if (u->kind == RULE_STREAM) continue;
        if (regexec(&u->re, name, 0, NULL, 0) == 0) {
            if (u->kind == RULE_NOT_COMM) return false;
            comm = true;
        }
    }
    return comm;
}

bool CommRules_streamIsComm(const CommRules *r, int64_t stream) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)stream);
    for (size_t i = 0; i < r->n; i++)
        if (r->rules[i].kind == RULE_STREAM && regexec(&r->rules[i].re, buf, 0, NULL, 0) == 0) return true;
    return false;
}

static EventClass static_class(EventKind k, unsigned flags) {
    switch (k) {
    case KIND_KERNEL: return CLASS_COMPUTE;
    case KIND_MEMCPY: return flags & EVF_MEMCPY_P2P ? CLASS_COMM : CLASS_MEMORY;
    case KIND_MEMSET: return CLASS_MEMORY;
    case KIND_SYNC: return CLASS_SYNC;
    case KIND_CPU_OP:
    case KIND_RUNTIME:
    case KIND_DRIVER:
    case KIND_PYTHON: return CLASS_CPU;
    case KIND_ANNOTATION:
    case KIND_GPU_ANNOTATION: return CLASS_ANNOTATION;
    default: return CLASS_OTHER;
    }
}

EventClass Classify_event(const CommRules *r, EventKind k, unsigned flags, const char *name, int64_t stream) {
    EventClass c = static_class(k, flags);
    if (k == KIND_KERNEL && r && (CommRules_nameIsComm(r, name) || CommRules_streamIsComm(r, stream)))
        c = CLASS_COMM;
    return c;
}

/* Classes over chunks of the events; a kernel name is matched against the rules the
 * first time a chunk meets it (two chunks may both match it: the same answer). */
typedef struct {
    Trace *t;
    const CommRules *r;
    _Atomic uint8_t *name_cls; /* per name: 0 not matched yet, 1 compute, 2 comm */
    const uint8_t *lane_comm;  /* per lane: a comm stream by the rules */
} ClassifyChunks;

static void classify_chunk(void *ctx, uint32_t c, size_t a, size_t b) {
    (void)c;
    ClassifyChunks *x = ctx;
    Trace *t = x->t;
    for (size_t i = a; i < b; i++) {
        TraceEvent *e = &t->events[i];
        EventClass cls = static_class(e->kind, e->flags);
        if (e->kind == KIND_KERNEL && x->r) {
            uint8_t k = atomic_load_explicit(&x->name_cls[e->name], memory_order_relaxed);
            if (!k) {
                k = CommRules_nameIsComm(x->r, StrTab_get(t->strings, e->name)) ? 2 : 1;
                atomic_store_explicit(&x->name_cls[e->name], k, memory_order_relaxed);
            }
            if (k == 2 || x->lane_comm[e->lane]) cls = CLASS_COMM;
        }
        e->cls = cls;
    }
}

void Classify_traceThreads(Trace *t, const CommRules *r, int threads) {
    size_t n_names = StrTab_count(t->strings), n = t->n_events;
    _Atomic uint8_t *name_cls = xcalloc(n_names ? n_names : 1, sizeof *name_cls);
    uint8_t *lane_comm = xcalloc(t->n_lanes ? t->n_lanes : 1, 1);
    for (size_t i = 0; i < t->n_lanes; i++)
        lane_comm[i] = r && t->lanes[i].gpu && CommRules_streamIsComm(r, t->lanes[i].stream);
    ClassifyChunks x = {t, r, name_cls, lane_comm};
    ParFor_chunks(n, ParFor_chunkCount(n, 0, threads), classify_chunk, &x);
    free(name_cls);
    free(lane_comm);
}

void Classify_trace(Trace *t, const CommRules *r) { Classify_traceThreads(t, r, 1); }
