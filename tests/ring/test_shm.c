/* Cross-process transport: a fork()ed child attaches through OVTRACE_SHM (as the
 * injection library will), produces from two threads and interns names; the parent
 * drains concurrently and checks count, order and that every name id resolves to the
 * string the child meant. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_test_util.h"

#define CHILD_THREADS 2
#define N_EVENTS 200000u
#define N_NAMES 40
#define SHARED_NAME "gemm_kernel<float, 128, 128>"
#define CHILD_NAME "only_interned_in_the_child"

static void name_of(char *buf, size_t n, uint64_t seq, uint32_t producer) {
    snprintf(buf, n, "void kernel_%u<%s>(int, float*)", (unsigned)((seq * 7 + producer) % N_NAMES),
             producer ? "half" : "float");
}

/* ---- child ---------------------------------------------------------------------------- */

typedef struct {
    RingSet *set;
    uint32_t id;
} ChildProducer;

static void *child_produce(void *p) {
    ChildProducer *cp = p;
    NameTable *nt = RingSet_names(cp->set);
    uint64_t retries = 0;
    char name[128];
    for (uint64_t seq = 0; seq < N_EVENTS; seq++) {
        RingRecord rec = rec_make(cp->id, seq);
        name_of(name, sizeof name, seq, cp->id);
        rec.name_id = NameTable_intern_cstr(nt, name); /* hot path: intern per event */
        rec.pid = (uint32_t)getpid();
        while (!RingSet_push(cp->set, &rec)) {
            retries++;
            sched_yield();
        }
    }
    /* Trailer: how many pushes failed, so the parent can check the drop count. */
    RingRecord fin = rec_make(cp->id, N_EVENTS);
    fin.kind = RING_KIND_COUNTER;
    fin.arg = retries;
    fin.name_id = NameTable_intern_cstr(nt, CHILD_NAME);
    while (!RingSet_push(cp->set, &fin))
        sched_yield();
    return NULL;
}

static int child_main(uint32_t shared_id) {
    RingSet *set = RingSet_attach_env();
    if (!set)
        return 10;
    if (NameTable_intern_cstr(RingSet_names(set), SHARED_NAME) != shared_id)
        return 11;
    ChildProducer cp[CHILD_THREADS];
    pthread_t th[CHILD_THREADS];
    for (uint32_t i = 0; i < CHILD_THREADS; i++) {
        cp[i] = (ChildProducer){set, i};
        if (pthread_create(&th[i], NULL, child_produce, &cp[i]) != 0)
            return 12;
    }
    for (int i = 0; i < CHILD_THREADS; i++)
        pthread_join(th[i], NULL);
    RingSet_free(set);
    return 0;
}

/* ---- parent --------------------------------------------------------------------------- */

typedef struct {
    NameTable *nt;
    uint64_t next[CHILD_THREADS];
    uint64_t retries;
    uint32_t child_name_id;
    uint32_t trailers;
    uint64_t total;
    uint64_t errors;
    pid_t child;
} Check;

static void check_cb(const RingRecord *rec, uint32_t ring, void *ctx) {
    (void)ring;
    Check *c = ctx;
    uint32_t p = rec->spare;
    if (p >= CHILD_THREADS) {
        c->errors++;
        return;
    }
    if (rec->kind == RING_KIND_COUNTER) {
        c->trailers++;
        c->retries += rec->arg;
        c->child_name_id = rec->name_id;
        return;
    }
    c->total++;
    if (rec->arg != c->next[p]++ || rec->pid != (uint32_t)c->child)
        c->errors++;
    char want[128];
    name_of(want, sizeof want, rec->arg, p);
    const char *got = NameTable_get(c->nt, rec->name_id, NULL);
    if (!got || strcmp(got, want) != 0)
        c->errors++;
}

static void fork_attach_produce_drain(void **state) {
    (void)state;
    RingSet *set = RingSet_create_shared(&(RingSetConfig){
        .nrings = 4, .capacity = 1u << 14, .name_bytes = 1u << 16, .name_slots = 1024});
    assert_non_null(set);
    uint32_t shared_id = NameTable_intern_cstr(RingSet_names(set), SHARED_NAME);
    char spec[64];
    assert_int_equal(RingSet_export(set, spec, sizeof spec), 0);
    assert_int_equal(strncmp(spec, "fd:", 3), 0);
    setenv(RING_SHM_ENV, spec, 1);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child_main(shared_id));

    Check c = {.nt = RingSet_names(set), .child = pid};
    int st = 0;
    bool exited = false;
    for (;;) {
        /* Check for exit before draining, so nothing pushed before exit can slip by. */
        if (!exited)
            exited = waitpid(pid, &st, WNOHANG) == pid;
        if (RingSet_drain(set, check_cb, &c, 8192) == 0) {
            if (exited)
                break;
            sched_yield();
        }
    }
    unsetenv(RING_SHM_ENV);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(c.errors, 0);
    assert_int_equal(c.total, (uint64_t)CHILD_THREADS * N_EVENTS);
    assert_int_equal(c.trailers, CHILD_THREADS);
    for (int i = 0; i < CHILD_THREADS; i++)
        assert_int_equal(c.next[i], N_EVENTS);
    assert_int_equal(RingSet_drops(set), c.retries);
    /* Same name -> same id across processes, in both directions. */
    NameTable *nt = RingSet_names(set);
    assert_int_equal(NameTable_intern_cstr(nt, CHILD_NAME), c.child_name_id);
    assert_string_equal(NameTable_get(nt, c.child_name_id, NULL), CHILD_NAME);
    assert_int_equal(NameTable_count(nt), 2 * N_NAMES + 2);
    assert_int_equal(RingSet_active(set), 0); /* the child's RingSet_free released them */
    RingSet_free(set);
}

/* Named POSIX shm: the child attaches by name. */
static void named_shm(void **state) {
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "/ovtrace-ring-test-%d", (int)getpid());
    RingSet *set = RingSet_create_named(
        &(RingSetConfig){.nrings = 2, .capacity = 64, .name_bytes = 4096, .name_slots = 64},
        name);
    assert_non_null(set);
    char spec[64];
    assert_int_equal(RingSet_export(set, spec, sizeof spec), 0);
    assert_string_equal(spec, name);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        RingSet *s = RingSet_attach(spec);
        if (!s)
            _exit(10);
        for (uint64_t i = 0; i < 10; i++) {
            RingRecord rec = rec_make(0, i);
            rec.name_id = NameTable_intern_cstr(RingSet_names(s), "named");
            if (!RingSet_push(s, &rec))
                _exit(11);
        }
        RingSet_free(s); /* not the owner: must not unlink */
        _exit(0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    RingRecord out[16];
    assert_int_equal(RingSet_drain_into(set, out, 16), 10);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(out[i].arg, i);
        assert_string_equal(NameTable_get(RingSet_names(set), out[i].name_id, NULL), "named");
    }
    int fd = shm_open(name, O_RDONLY, 0);
    assert_true(fd >= 0); /* still there while the owner lives */
    close(fd);
    RingSet_free(set);
    assert_true(shm_open(name, O_RDONLY, 0) < 0); /* owner unlinked it */
}

static void attach_rejects_garbage(void **state) {
    (void)state;
    assert_null(RingSet_attach(NULL));
    assert_null(RingSet_attach(""));
    assert_null(RingSet_attach("fd:"));
    assert_null(RingSet_attach("fd:12x"));
    assert_null(RingSet_attach("fd:999999"));
    assert_null(RingSet_attach("/ovtrace-ring-test-does-not-exist"));
    unsetenv(RING_SHM_ENV);
    assert_null(RingSet_attach_env());

    /* A memfd that is not a ring set, then one with a bad version and a truncated one. */
    RingSet *ok = RingSet_create_shared(
        &(RingSetConfig){.nrings = 1, .capacity = 16, .name_bytes = 4096, .name_slots = 64});
    assert_non_null(ok);
    int fd = memfd_create("not-a-ring", 0);
    assert_true(fd >= 0);
    char zeros[8192] = {0};
    assert_int_equal(write(fd, zeros, sizeof zeros), sizeof zeros);
    char spec[32];
    snprintf(spec, sizeof spec, "fd:%d", fd);
    errno = 0;
    assert_null(RingSet_attach(spec));
    assert_int_equal(errno, EINVAL);
    close(fd);

    /* A byte copy of a valid set: accepted; with a bad version or truncated: rejected. */
    char buf[64];
    assert_int_equal(RingSet_export(ok, buf, sizeof buf), 0);
    RingSet *peer = RingSet_attach(buf); /* sanity: the valid one attaches */
    assert_non_null(peer);
    RingSet_free(peer);
    fd = memfd_create("bad-version", 0);
    assert_true(fd >= 0);
    {
        size_t sz = (size_t)lseek(RingSet_fd(ok), 0, SEEK_END);
        char *copy = malloc(sz);
        assert_int_equal(pread(RingSet_fd(ok), copy, sz, 0), (ssize_t)sz);
        ((uint32_t *)copy)[2] = 999; /* version follows the 8-byte magic */
        assert_int_equal(write(fd, copy, sz), (ssize_t)sz);
        snprintf(spec, sizeof spec, "fd:%d", fd);
        assert_null(RingSet_attach(spec));
        ((uint32_t *)copy)[2] = 1;
        assert_int_equal(pwrite(fd, copy, sz, 0), (ssize_t)sz);
        RingSet *again = RingSet_attach(spec); /* the right version: accepted */
        assert_non_null(again);
        RingSet_free(again);
        assert_int_equal(ftruncate(fd, (off_t)(sz / 2)), 0);
        assert_null(RingSet_attach(spec)); /* smaller than the header claims */
        free(copy);
    }
    close(fd);
    RingSet_free(ok);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_attach_produce_drain),
        cmocka_unit_test(named_shm),
        cmocka_unit_test(attach_rejects_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
