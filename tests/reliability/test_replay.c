/* Runs a fuzz target's LLVMFuzzerTestOneInput, compiled without libFuzzer, over
 * stored inputs: every crash the fuzzers found (tests/reliability/crashes/TARGET-*)
 * stays a regression test in the normal build and, through tests/sanitize.sh, under
 * ASan+UBSan. Usage: test_reliability_replay_TARGET DIR... (files named TARGET-* in each DIR, or
 * every file when the directory is named after the target). */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#ifndef FUZZ_TARGET
#error FUZZ_TARGET names the target
#endif

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    fprintf(stderr, "%s: %s (%zu bytes)\n", FUZZ_TARGET, path, n);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    size_t prefix = strlen(FUZZ_TARGET);
    int runs = 0, bad = 0;
#ifdef FUZZ_REPLAY_DIRS
    if (argc < 2) { /* default: the stored crashes (and, for the loaders, the malformed corpus) */
        static char *dirs[] = {"", FUZZ_REPLAY_DIRS};
        argv = dirs;
        argc = (int)(sizeof dirs / sizeof dirs[0]);
    }
#endif
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            return 1;
        }
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        bool all = !strcmp(base, FUZZ_TARGET);
        char **names = NULL;
        size_t nn = 0;
        for (struct dirent *de; (de = readdir(d));) {
            if (de->d_name[0] == '.') continue;
            if (!all && (strncmp(de->d_name, FUZZ_TARGET, prefix) || de->d_name[prefix] != '-')) continue;
            names = realloc(names, (nn + 1) * sizeof *names);
            names[nn++] = strdup(de->d_name);
        }
        closedir(d);
        if (nn) qsort(names, nn, sizeof *names, cmp);
        for (size_t k = 0; k < nn; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            bad += run_file(path);
            runs++;
            free(names[k]);
        }
        free(names);
    }
    fprintf(stderr, "%s: %d input%s replayed, no crash\n", FUZZ_TARGET, runs, runs == 1 ? "" : "s");
    return bad ? 1 : 0;
}
