/* NameTable: interning, reserved ids, bounds checks, full behaviour, concurrent intern. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring_test_util.h"

static RingSet *small_set(uint32_t bytes, uint32_t slots) {
    RingSet *s = RingSet_new(
        &(RingSetConfig){.nrings = 1, .capacity = 2, .name_bytes = bytes, .name_slots = slots});
    assert_non_null(s);
    return s;
}

static void intern_basics(void **state) {
    (void)state;
    RingSet *s = small_set(1u << 16, 256);
    NameTable *nt = RingSet_names(s);
    assert_int_equal(NameTable_intern(nt, "x", 0), NAME_ID_NONE);
    assert_string_equal(NameTable_get(nt, NAME_ID_NONE, NULL), "");
    assert_string_equal(NameTable_get(nt, NAME_ID_FULL, NULL), NAME_TABLE_FULL_STR);

    uint32_t a = NameTable_intern_cstr(nt, "cudaMemcpyAsync");
    uint32_t b = NameTable_intern_cstr(nt, "ampere_sgemm_128x64_nn");
    assert_true(a > NAME_ID_FULL && b > NAME_ID_FULL && a != b);
    assert_int_equal(NameTable_intern_cstr(nt, "cudaMemcpyAsync"), a);
    assert_int_equal(NameTable_intern(nt, "cudaMemcpyAsyncXYZ", 15), a); /* by length */
    size_t len = 0;
    assert_string_equal(NameTable_get(nt, b, &len), "ampere_sgemm_128x64_nn");
    assert_int_equal(len, strlen("ampere_sgemm_128x64_nn"));
    assert_int_equal(NameTable_count(nt), 2);
    assert_int_equal(NameTable_full_count(nt), 0);

    /* Embedded NULs and prefixes are distinct names. */
    uint32_t c = NameTable_intern(nt, "ab\0c", 4);
    uint32_t d = NameTable_intern(nt, "ab", 2);
    assert_int_not_equal(c, d);
    assert_int_equal(NameTable_intern(nt, "ab\0c", 4), c);

    /* Ids from a peer are untrusted: out-of-range ones resolve to NULL, not a crash. */
    assert_null(NameTable_get(nt, 1u << 30, NULL));
    assert_null(NameTable_get(nt, UINT32_MAX, NULL));

    /* Over-long names are truncated to NAME_MAX_LEN (and still intern consistently). */
    size_t big = NAME_MAX_LEN + 100;
    char *longname = malloc(big);
    memset(longname, 'k', big);
    uint32_t l1 = NameTable_intern(nt, longname, big);
    uint32_t l2 = NameTable_intern(nt, longname, NAME_MAX_LEN);
    assert_int_equal(l1, l2);
    assert_int_equal(strlen(NameTable_get(nt, l1, NULL)), NAME_MAX_LEN);
    free(longname);
    RingSet_free(s);
}

/* Arena exhausted: FULL id, exact full count, earlier names intact. */
static void full_by_bytes(void **state) {
    (void)state;
    RingSet *s = small_set(256, 1024);
    NameTable *nt = RingSet_names(s);
    char name[32];
    uint32_t ids[10];
    /* "name_000": 8 bytes -> entry 8 + 8 + 1 = 17, padded to 24; 10 fit in 256. */
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "name_%03d", i);
        ids[i] = NameTable_intern_cstr(nt, name);
        assert_true(ids[i] > NAME_ID_FULL);
    }
    for (int i = 10; i < 25; i++) {
        snprintf(name, sizeof name, "name_%03d", i);
        assert_int_equal(NameTable_intern_cstr(nt, name), NAME_ID_FULL);
    }
    assert_int_equal(NameTable_full_count(nt), 15);
    assert_int_equal(NameTable_intern_cstr(nt, "x"), NAME_ID_FULL); /* even a short one */
    assert_int_equal(NameTable_full_count(nt), 16);
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "name_%03d", i);
        assert_int_equal(NameTable_intern_cstr(nt, name), ids[i]); /* lookups still work */
        assert_string_equal(NameTable_get(nt, ids[i], NULL), name);
    }
    assert_int_equal(NameTable_full_count(nt), 16);
    assert_int_equal(NameTable_count(nt), 10);
    assert_int_equal(NameTable_bytes_used(nt), 256);
    RingSet_free(s);
}

/* Hash index at its load limit (3/4 of the slots). */
static void full_by_slots(void **state) {
    (void)state;
    RingSet *s = small_set(1u << 16, 16);
    NameTable *nt = RingSet_names(s);
    char name[32];
    int ok = 0, full = 0;
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "n%d", i);
        uint32_t id = NameTable_intern_cstr(nt, name);
        if (id == NAME_ID_FULL)
            full++;
        else
            ok++;
    }
    assert_int_equal(ok, 12);
    assert_int_equal(full, 8);
    assert_int_equal(NameTable_full_count(nt), 8);
    assert_int_equal(NameTable_count(nt), 12);
    RingSet_free(s);
}

#define THREADS 4
#define NAMES 2000

typedef struct {
    NameTable *nt;
    int t;
    uint32_t ids[NAMES];
} Interner;

static void *intern_thread(void *p) {
    Interner *in = p;
    char name[64];
    for (int k = 0; k < 3; k++) /* repeat: later rounds take the lookup path */
        for (int j = 0; j < NAMES; j++) {
            int i = in->t % 2 ? NAMES - 1 - j : (j * 7 + in->t) % NAMES;
            snprintf(name, sizeof name, "kernel_%d", i);
            uint32_t id = NameTable_intern_cstr(in->nt, name);
            if (k && id != in->ids[i])
                in->ids[i] = 0; /* flagged for the main thread */
            else
                in->ids[i] = id;
        }
    return NULL;
}

/* Threads racing to intern the same new names all agree on one id per name. */
static void concurrent_same_ids(void **state) {
    (void)state;
    RingSet *s = small_set(1u << 20, 4096);
    NameTable *nt = RingSet_names(s);
    static Interner in[THREADS];
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        in[t].nt = nt;
        in[t].t = t;
        pthread_create(&th[t], NULL, intern_thread, &in[t]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    char name[64];
    for (int i = 0; i < NAMES; i++) {
        assert_true(in[0].ids[i] > NAME_ID_FULL);
        for (int t = 1; t < THREADS; t++)
            assert_int_equal(in[t].ids[i], in[0].ids[i]);
        snprintf(name, sizeof name, "kernel_%d", i);
        assert_string_equal(NameTable_get(nt, in[0].ids[i], NULL), name);
    }
    assert_int_equal(NameTable_count(nt), NAMES);
    assert_int_equal(NameTable_full_count(nt), 0);
    RingSet_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(intern_basics),
        cmocka_unit_test(full_by_bytes),
        cmocka_unit_test(full_by_slots),
        cmocka_unit_test(concurrent_same_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
