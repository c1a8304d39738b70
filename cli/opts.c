#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "opts.h"

#define LONG_BASE 256 /* getopt_long's val for a long option: LONG_BASE + its index */

static size_t count_specs(const OptSpec *const *tables) {
    size_t n = 0;
    for (size_t t = 0; tables[t]; t++)
        for (const OptSpec *s = tables[t]; s->name || s->short_name; s++) n++;
    return n;
}

/* "--threads=4" -> "--threads" */
static void name_part(const char *text, char *out, size_t n) {
    size_t len = strcspn(text, "=");
    snprintf(out, n, "%.*s", (int)(len < 200 ? len : 200), text);
}

int Cli_parseOptions(const char *cmd, int argc, char **argv, const OptSpec *const *tables, CliOptFn fn, void *ctx,
                     int *rest) {
    size_t n = count_specs(tables);
    const OptSpec **specs = xcalloc(n + 1, sizeof *specs);
    struct option *lo = xcalloc(n + 1, sizeof *lo);
    char *shorts = xmalloc(2 * n + 3);
    /* '-': positional arguments come back in order (as 1), so options may follow files
     * (export IN -o OUT) without argv being permuted; ':': a missing value is ':' */
    size_t k = 0, nl = 0, ns = 0;
    shorts[ns++] = '-';
    shorts[ns++] = ':';
    for (size_t t = 0; tables[t]; t++)
        for (const OptSpec *s = tables[t]; s->name || s->short_name; s++, k++) {
            specs[k] = s;
            if (s->name) lo[nl++] = (struct option){s->name + 2, s->value ? required_argument : no_argument, NULL,
                                                    LONG_BASE + (int)k};
            if (s->short_name) {
                shorts[ns++] = s->short_name;
                if (s->value) shorts[ns++] = ':';
            }
        }
    shorts[ns] = '\0';
    if (rest) *rest = -1;
    opterr = 0;
    optind = 0; /* a full reset of getopt's state */
    int rc = 0;
    char name[256];
    for (;;) {
        int prev = optind < 1 ? 1 : optind; /* the argument getopt_long looks at next */
        int c = getopt_long(argc, argv, shorts, lo, NULL);
        if (c == -1) {
            if (prev < argc && !strcmp(argv[prev], "--")) { /* '--' ends the options */
                if (rest) *rest = prev + 1;
                else
                    for (int i = prev + 1; i < argc && !rc; i++) rc = fn(ctx, NULL, argv[i]);
            }
            break;
        }
        if (c == 1) { /* a positional argument, '-' included */
            if ((rc = fn(ctx, NULL, optarg))) break;
            continue;
        }
        if (c == '?' || c == ':') {
            const OptSpec *s = optopt >= LONG_BASE ? specs[optopt - LONG_BASE] : NULL;
            for (size_t i = 0; !s && optopt > 0 && i < n; i++)
                if (specs[i]->short_name == optopt) s = specs[i];
            if (c == ':' && s) {
                if (s->missing) cli_error("%s", s->missing);
                else if (optopt >= LONG_BASE) cli_error("option %s needs a value", s->name);
                else cli_error("option -%c needs a value", optopt);
            } else if (s && optopt >= LONG_BASE) {
                cli_error("option %s takes no value, got '%s' (see 'ovtrace %s --help')", s->name, argv[prev], cmd);
            } else {
                if (optopt > 0 && optopt < LONG_BASE) snprintf(name, sizeof name, "-%c", optopt);
                else name_part(argv[prev], name, sizeof name);
                cli_error("unknown option '%s' for %s (see 'ovtrace %s --help')", name, cmd, cmd);
            }
            rc = 2;
            break;
        }
        const OptSpec *s = NULL;
        if (c >= LONG_BASE) {
            s = specs[c - LONG_BASE];
            /* getopt_long takes unambiguous prefixes (--thr for --threads): refuse them,
             * so that a name a later version adds cannot change what a script means */
            size_t len = strlen(s->name);
            const char *text = argv[prev];
            if (strncmp(text, s->name, len) || (text[len] && text[len] != '=')) {
                name_part(text, name, sizeof name);
                cli_error("unknown option '%s' for %s (see 'ovtrace %s --help')", name, cmd, cmd);
                rc = 2;
                break;
            }
        } else {
            for (size_t i = 0; !s && i < n; i++)
                if (specs[i]->short_name == c) s = specs[i];
            /* -o=x would write to '=x': surely meant as --output=x */
            if (s && s->value && optarg && optarg[0] == '=' && optarg == argv[prev] + 2) {
                if (s->name) cli_error("option -%c takes its value as '-%c VALUE' or '%s=VALUE', got '%s'", c, c, s->name, argv[prev]);
                else cli_error("option -%c takes its value as '-%c VALUE', got '%s'", c, c, argv[prev]);
                rc = 2;
                break;
            }
        }
        if (!s) { /* cannot happen: getopt_long returns only what the tables hold */
            cli_error("option parsing failed at '%s'", argv[prev < argc ? prev : argc - 1]);
            rc = 2;
            break;
        }
        if ((rc = fn(ctx, s, s->value ? optarg : NULL))) break;
    }
    free(specs);
    free(lo);
    free(shorts);
    return rc;
}

void Cli_listOptions(FILE *out, const OptSpec *const *tables) {
    for (size_t t = 0; tables[t]; t++)
        for (const OptSpec *s = tables[t]; s->name || s->short_name; s++) {
            fprintf(out, "%s\t%s\t", s->name ? s->name : "", s->value ? "value" : "flag");
            if (s->short_name) fprintf(out, "-%c", s->short_name);
            fprintf(out, "%s\n", s->hidden ? "\thidden" : "");
        }
}

void Cli_helpValues(FILE *out) { fputs("Options take their value as --opt VALUE or --opt=VALUE.\n", out); }

bool Cli_isOption(const OptSpec *const *tables, const char *arg) {
    if (arg[0] != '-' || !arg[1]) return false;
    size_t n = arg[1] == '-' ? strcspn(arg, "=") : 0;
    for (const OptSpec *const *t = tables; *t; t++)
        for (const OptSpec *s = *t; s->name || s->short_name; s++) {
            if (n ? s->name && strlen(s->name) == n && !strncmp(s->name, arg, n) : s->short_name == arg[1])
                return true;
        }
    return false;
}
