/* Fuzz target: classification rules (the rules file / $OVTRACE_RULES lines, POSIX
 * EREs compiled by CommRules_addLine) and matching them against names and streams.
 * Input: rule lines, then a line "--", then names to classify, one per line. */
#include "fuzz_common.h"
#include "ovtrace/model/classify.h"

/* glibc's regex engine is exponential on some patterns; a rule file is written by the
 * user, so cap the pattern size to keep the fuzzer on our code. */
#define MAX_LINE 96

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    CommRules *r = (size && data[0] & 1) ? CommRules_default() : CommRules_empty();
    char *save = NULL, *names = NULL;
    char err[512];
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strcmp(line, "--")) {
            names = save;
            break;
        }
        if (strlen(line) > MAX_LINE) continue;
        err[0] = '\0';
        if (!CommRules_addLine(r, line, err, sizeof err) && !err[0]) abort(); /* failure needs a message */
    }
    if (names) {
        for (char *name = strtok_r(names, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
            bool comm = CommRules_nameIsComm(r, name);
            EventClass c = Classify_event(r, KIND_KERNEL, 0, name, (int64_t)strlen(name));
            if (comm && c != CLASS_COMM) abort(); /* a comm-named kernel is comm */
            (void)Classify_event(r, KIND_MEMCPY, EVF_MEMCPY_P2P, name, 7);
            (void)CommRules_streamIsComm(r, (int64_t)strlen(name) - 3);
        }
    } else {
        (void)CommRules_nameIsComm(r, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
        (void)CommRules_streamIsComm(r, 7);
    }
    CommRules_free(r);
    free(text);
    return 0;
}
