/* base/termsafe.c and JsonOut_string: expected strings written by
 * hand from the rules in termsafe.h; the JSON output is checked by cJSON parsing it
 * back. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "ovtrace/write/jsonout.h"
#include "ovtrace/base/termsafe.h"

static const char *esc(const char *s) {
    static char buf[512];
    return TermSafe_str(s, buf, sizeof buf);
}

static void unsafe_set(void **state) {
    (void)state;
    for (uint32_t cp = 0; cp < 0x20; cp++) assert_true(TermSafe_unsafe(cp));
    for (uint32_t cp = 0x7f; cp <= 0x9f; cp++) assert_true(TermSafe_unsafe(cp));
    for (uint32_t cp = 0x202a; cp <= 0x202e; cp++) assert_true(TermSafe_unsafe(cp));
    for (uint32_t cp = 0x2066; cp <= 0x2069; cp++) assert_true(TermSafe_unsafe(cp));
    assert_true(TermSafe_unsafe(0x200e) && TermSafe_unsafe(0x200f) && TermSafe_unsafe(0x061c));
    const uint32_t safe[] = {' ', 'a', '~', 0xa0, 0xe9, 0x2029, 0x2030, 0x2065, 0x206a, 0x4e2d, 0x1f600};
    for (size_t i = 0; i < sizeof safe / sizeof safe[0]; i++) assert_false(TermSafe_unsafe(safe[i]));
}

static void strict_decode(void **state) {
    (void)state;
    uint32_t cp;
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xc2\x9b", 2, &cp), 2);
    assert_int_equal(cp, 0x9b);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xe2\x80\xae", 3, &cp), 3);
    assert_int_equal(cp, 0x202e);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
    assert_int_equal(cp, 0x1f600);
    /* overlong ESC, overlong NUL, a surrogate, past U+10FFFF, a cut sequence, a lone continuation */
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xc0\x9b", 2, &cp), 0);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xe0\x80\x9b", 3, &cp), 0);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\xe2\x80", 2, &cp), 0);
    assert_int_equal(TermSafe_decode((const unsigned char *)"\x9b", 1, &cp), 0);
}

static void escapes(void **state) {
    (void)state;
    assert_string_equal(esc("plain name_1"), "plain name_1");
    assert_string_equal(esc("caf\xc3\xa9 \xe4\xb8\xad"), "caf\xc3\xa9 \xe4\xb8\xad"); /* UTF-8 stays */
    assert_string_equal(esc("t\x1b]0;PWNED\x07x"), "t\\x1b]0;PWNED\\x07x");
    assert_string_equal(esc("c\x1b]52;c;cHc=\x1b\\"), "c\\x1b]52;c;cHc=\\x1b\\");
    assert_string_equal(esc("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
    assert_string_equal(esc("a\nb\tc\rd"), "a\\nb\\tc\\rd");
    assert_string_equal(esc("c1 \xc2\x9b" "2J \xc2\x9d"), "c1 \\u009b2J \\u009d");
    assert_string_equal(esc("bidi \xe2\x80\xae" "x\xe2\x81\xa6" "y\xe2\x81\xa9"), "bidi \\u202ex\\u2066y\\u2069");
    /* bytes that are not UTF-8 (a raw 0x9b is CSI to an 8-bit terminal), overlong ESC */
    assert_string_equal(esc("r\x9b" "2J \xc0\x9b \xff"), "r\\x9b2J \\xc0\\x9b \\xff");
    assert_string_equal(esc(NULL), "");
    /* a small buffer cuts before an escape, never inside it */
    char small[8];
    assert_string_equal(TermSafe_str("ab\x1b[2J", small, sizeof small), "ab\\x1b[");
    assert_string_equal(TermSafe_str("abcd\x1bz", small, sizeof small), "abcd");
}

static char *to_string(void (*fn)(FILE *, const char *), const char *s) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(f, s);
    fclose(f);
    return buf;
}

static void fputs_lines(FILE *f, const char *s) { TermSafe_fputs(s, f, true); }
static void fprintf_msg(FILE *f, const char *s) { TermSafe_fprintf(f, "error: %s: bad\n", s); }

static void messages_keep_lines(void **state) {
    (void)state;
    char *a = to_string(fputs_lines, "one\n\ttwo\x1b[2J\n");
    assert_string_equal(a, "one\n\ttwo\\x1b[2J\n");
    free(a);
    char *b = to_string(fprintf_msg, "/tmp/evil\x1b]0;T\x07\xe2\x80\xae.json");
    assert_string_equal(b, "error: /tmp/evil\\x1b]0;T\\x07\\u202e.json: bad\n");
    free(b);
    /* longer than the 1 KB first buffer */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[2000] = '\x1b';
    char *c = to_string(fprintf_msg, big);
    assert_int_equal(strlen(c), strlen("error: ") + 2999 + 3 + strlen(": bad\n"));
    assert_null(strchr(c, '\x1b'));
    free(c);
}

static void json_valid_and_exact(void **state) {
    (void)state;
    const char *names[] = {"k\x1b]52;c;cHc=\x07", "q\"b\\s\n\t\r", "c1\xc2\x9b" "2J", "bidi\xe2\x80\xae" "x",
                           "caf\xc3\xa9 \xf0\x9f\x98\x80", "\x7f"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *j = to_string(JsonOut_string, names[i]);
        for (const char *p = j; *p; p++) assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
        assert_null(strstr(j, "\xe2\x80\xae"));
        assert_null(strstr(j, "\xc2\x9b"));
        cJSON *v = cJSON_Parse(j);
        assert_non_null(v);
        assert_true(cJSON_IsString(v));
        assert_string_equal(v->valuestring, names[i]); /* decodes back exactly */
        cJSON_Delete(v);
        free(j);
    }
    /* not UTF-8: valid JSON with U+FFFD in place of each bad byte */
    char *j = to_string(JsonOut_string, "a\x9b\xff" "b");
    assert_string_equal(j, "\"a\\ufffd\\ufffdb\"");
    free(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unsafe_set),       cmocka_unit_test(strict_decode),        cmocka_unit_test(escapes),
        cmocka_unit_test(messages_keep_lines), cmocka_unit_test(json_valid_and_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
