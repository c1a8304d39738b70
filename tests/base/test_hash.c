/* base/hash.h: Hash_bytes reads exactly its n bytes (strings that end just before an
 * unreadable page, or start just after one) and every one of them counts (changing
 * any byte of strings of 0 to 80 bytes changes the hash, as does the length). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ovtrace/base/hash.h"
#include "../lib/guardpage.h"

static void every_byte_counts(void **state) {
    (void)state;
    char s[96];
    for (size_t i = 0; i < sizeof s; i++) s[i] = (char)('a' + (i * 7) % 26);
    for (size_t n = 0; n <= 80; n++) {
        uint64_t h = Hash_bytes(s, n);
        if (n) assert_int_not_equal(h, Hash_bytes(s, n - 1)); /* a prefix */
        for (size_t at = 0; at < n; at++) {
            for (int bit = 0; bit < 8; bit++) {
                s[at] ^= (char)(1 << bit);
                if (Hash_bytes(s, n) == h) fail_msg("n %zu: flipping bit %d of byte %zu keeps the hash", n, bit, at);
                s[at] ^= (char)(1 << bit);
            }
        }
    }
}

static void reads_only_its_bytes(void **state) {
    (void)state;
    GuardPage g;
    assert_true(GuardPage_map(&g));
    memset(g.lo, 'x', g.page);
    for (size_t n = 0; n <= 80; n++) /* the same bytes give the same hash wherever they lie */
        assert_int_equal(Hash_bytes(g.lo, n), Hash_bytes(g.hi - n, n));
    GuardPage_unmap(&g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_byte_counts),
        cmocka_unit_test(reads_only_its_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
