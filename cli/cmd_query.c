/* ovtrace query: SQL over traces (docs/sql.md). Each -c runs in order; results as an
 * aligned table, CSV or JSON. Without -c, a prompt on a terminal (libedit: line
 * editing and the session's history), else the SQL on standard input. Text from the
 * trace or the SQL reaches the terminal escaped (base/termsafe). */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli.h"
#include "ovtrace/base/alloc.h"
#include "ovtrace/base/termsafe.h"
#include "ovtrace/query/query.h"
#include "ovtrace/write/jsonout.h"

void help_query(FILE *out) {
    fprintf(out,
            "usage: ovtrace query [OPTIONS] FILE... [-c SQL]...\n\n"
            "SQL (SQLite) over the traces: the tables events, lanes, flows, counters, collectives,\n"
            "devices and steps read the loaded model in place; arg(id, 'key') reads an event's\n"
            "argument from its file; median(x) and percentile(x, p) aggregate. Times are integer ns,\n"
            "ts from the trace start (ts_abs: the trace's own clock). Schema and examples: docs/sql.md.\n\n"
            "options:\n"
            "  -c, --command SQL  run SQL (one or more statements); several -c run in order, and\n"
            "                     the first error stops (exit status 1)\n"
            "  --csv              results as CSV (a header line, then one line per row)\n"
            "  --json             results as JSON (one array of row objects per statement)\n"
            "Default: an aligned table. Without -c: a prompt on a terminal (.tables, .schema [TABLE],\n"
            ".mode table|csv|json, .help, .quit), else SQL read from standard input.\n");
    InputOptions_help(out);
}

typedef enum { MODE_TABLE, MODE_CSV, MODE_JSON } OutMode;

/* Widest a column other than the last is printed in table mode (--csv/--json: whole). */
enum { TABLE_MAX_WIDTH = 60 };

/* ---------- cells ---------- */

/* s escaped for the terminal (malloc'd). */
static char *safe_dup(const char *s) {
    size_t cap = 4 * strlen(s) + 8; /* "\x1b" is the widest escape per byte */
    char *out = xmalloc(cap);
    TermSafe_str(s, out, cap);
    return out;
}

/* Display width: one cell per code point (escaped text holds no controls). */
static size_t cells(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* A cell's text for the table and CSV: numbers as SQLite prints them, text escaped,
 * blobs as x'hex', NULL empty. */
static char *cell_text(sqlite3_stmt *st, int c, bool exact_real) {
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL: return xstrdup("");
    case SQLITE_INTEGER: {
        char b[32];
        snprintf(b, sizeof b, "%lld", (long long)sqlite3_column_int64(st, c));
        return xstrdup(b);
    }
    case SQLITE_FLOAT:
        if (exact_real) {
            char b[40];
            snprintf(b, sizeof b, "%.17g", sqlite3_column_double(st, c));
            return xstrdup(b);
        }
        return xstrdup((const char *)sqlite3_column_text(st, c));
    case SQLITE_BLOB: {
        const unsigned char *p = sqlite3_column_blob(st, c);
        int n = sqlite3_column_bytes(st, c);
        char *s = xmalloc(2 * (size_t)n + 4), *o = s;
        o += sprintf(o, "x'");
        for (int i = 0; i < n; i++) o += sprintf(o, "%02x", p[i]);
        strcpy(o, "'");
        return s;
    }
    default: return safe_dup((const char *)sqlite3_column_text(st, c));
    }
}

/* ---------- output modes ---------- */

typedef struct {
    char **cell; /* rows x cols, row-major */
    size_t n, cap;
} Cells;

/* The first TABLE_MAX_WIDTH - 3 code points and "..." when s is wider. */
static void put_clipped(FILE *out, const char *s, size_t width, bool right, bool clip) {
    size_t w = cells(s);
    if (clip && w > width) {
        size_t keep = width - 3, k = 0;
        const char *p = s;
        for (; *p; p++) {
            if (((unsigned char)*p & 0xc0) != 0x80 && k++ == keep) break;
        }
        fwrite(s, 1, (size_t)(p - s), out);
        fputs("...", out);
        return;
    }
    if (right) fprintf(out, "%*s", (int)(width - w), "");
    fputs(s, out);
    if (!right && clip) fprintf(out, "%*s", (int)(width - w), "");
}

static int run_table(FILE *out, sqlite3_stmt *st, int ncol, int *rc) {
    Cells C = {0};
    bool *numeric = xcalloc((size_t)ncol, sizeof *numeric);
    size_t *width = xcalloc((size_t)ncol, sizeof *width);
    char **head = xcalloc((size_t)ncol, sizeof *head);
    for (int c = 0; c < ncol; c++) {
        head[c] = safe_dup(sqlite3_column_name(st, c));
        width[c] = cells(head[c]);
        numeric[c] = true;
    }
    size_t rows = 0;
    while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
        GROW(C.cell, C.cap, C.n + (size_t)ncol);
        for (int c = 0; c < ncol; c++) {
            int type = sqlite3_column_type(st, c);
            if (type != SQLITE_INTEGER && type != SQLITE_FLOAT && type != SQLITE_NULL) numeric[c] = false;
            char *s = cell_text(st, c, false);
            size_t w = cells(s);
            if (w > width[c]) width[c] = w;
            C.cell[C.n++] = s;
        }
        rows++;
    }
    for (int c = 0; c + 1 < ncol; c++)
        if (width[c] > TABLE_MAX_WIDTH) width[c] = TABLE_MAX_WIDTH;
    for (int c = 0; c < ncol; c++) {
        if (c) fputs("  ", out);
        put_clipped(out, head[c], width[c], numeric[c], c + 1 < ncol);
    }
    fputc('\n', out);
    for (int c = 0; c < ncol; c++) {
        if (c) fputs("  ", out);
        size_t dashes = width[c] > TABLE_MAX_WIDTH ? TABLE_MAX_WIDTH : width[c];
        for (size_t k = 0; k < dashes; k++) fputc('-', out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < rows; r++) {
        for (int c = 0; c < ncol; c++) {
            if (c) fputs("  ", out);
            put_clipped(out, C.cell[r * (size_t)ncol + (size_t)c], width[c], numeric[c], c + 1 < ncol);
        }
        fputc('\n', out);
    }
    for (size_t i = 0; i < C.n; i++) free(C.cell[i]);
    for (int c = 0; c < ncol; c++) free(head[c]);
    free(C.cell);
    free(head);
    free(width);
    free(numeric);
    return 0;
}

static void put_csv(FILE *out, const char *s) {
    if (!strpbrk(s, ",\"")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void run_csv(FILE *out, sqlite3_stmt *st, int ncol, int *rc) {
    for (int c = 0; c < ncol; c++) {
        char *h = safe_dup(sqlite3_column_name(st, c));
        if (c) fputc(',', out);
        put_csv(out, h);
        free(h);
    }
    fputc('\n', out);
    while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < ncol; c++) {
            char *s = cell_text(st, c, true);
            if (c) fputc(',', out);
            put_csv(out, s);
            free(s);
        }
        fputc('\n', out);
    }
}

static void json_value(FILE *out, sqlite3_stmt *st, int c) {
    switch (sqlite3_column_type(st, c)) {
    case SQLITE_NULL: fputs("null", out); break;
    case SQLITE_INTEGER: fprintf(out, "%lld", (long long)sqlite3_column_int64(st, c)); break;
    case SQLITE_FLOAT: {
        double d = sqlite3_column_double(st, c);
        if (isfinite(d)) fprintf(out, "%.17g", d);
        else fputs("null", out);
        break;
    }
    case SQLITE_BLOB: {
        char *s = cell_text(st, c, true);
        JsonOut_string(out, s);
        free(s);
        break;
    }
    default: JsonOut_string(out, (const char *)sqlite3_column_text(st, c));
    }
}

static void run_json(FILE *out, sqlite3_stmt *st, int ncol, int *rc) {
    fputc('[', out);
    size_t rows = 0;
    while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
        fputs(rows++ ? ",\n {" : "\n {", out);
        for (int c = 0; c < ncol; c++) {
            if (c) fputs(", ", out);
            JsonOut_string(out, sqlite3_column_name(st, c));
            fputs(": ", out);
            json_value(out, st, c);
        }
        fputc('}', out);
    }
    fputs(rows ? "\n]\n" : "]\n", out);
}

/* ---------- running SQL ---------- */

/* "ovtrace: error: MSG" and, with an offset, the line of the SQL and a caret under it. */
static void print_error(const char *where, const char *sql, const QueryError *e) {
    QueryError end;
    if (e->offset < 0 && !strcmp(e->msg, "incomplete input")) { /* SQLite gives no place: it is the end */
        size_t n = strlen(sql);
        while (n && (sql[n - 1] == ' ' || sql[n - 1] == '\t' || sql[n - 1] == '\n' || sql[n - 1] == '\r')) n--;
        end.offset = (long)n;
        snprintf(end.msg, sizeof end.msg, "incomplete input: the statement ends early");
        e = &end;
    }
    if (e->offset < 0) {
        cli_error("%s%s", where, e->msg);
        return;
    }
    size_t off = (size_t)e->offset, len = strlen(sql);
    if (off > len) off = len;
    size_t ls = off, le = off, line = 1;
    while (ls > 0 && sql[ls - 1] != '\n') ls--;
    while (le < len && sql[le] != '\n') le++;
    for (size_t i = 0; i < ls; i++) line += sql[i] == '\n';
    char *pre = xstrndup(sql + ls, off - ls), *all = xstrndup(sql + ls, le - ls);
    char *spre = safe_dup(pre), *sall = safe_dup(all);
    cli_error("%s%s (offset %zu, line %zu, column %zu)", where, e->msg, off, line, cells(spre) + 1);
    fprintf(stderr, "  %s\n  %*s^\n", sall, (int)cells(spre), "");
    free(pre);
    free(all);
    free(spre);
    free(sall);
}

/* Runs every statement of sql; false after the first error (printed). */
static bool run_sql(QueryDb *q, const char *sql, OutMode mode, const char *where) {
    size_t from = 0, next;
    QueryError e;
    for (;;) {
        sqlite3_stmt *st;
        if (!QueryDb_prepare(q, sql, from, &st, &next, &e)) {
            print_error(where, sql, &e);
            return false;
        }
        if (!st) return true;
        int ncol = sqlite3_column_count(st), rc = SQLITE_DONE;
        if (!ncol) {
            while ((rc = sqlite3_step(st)) == SQLITE_ROW) continue;
        } else if (mode == MODE_CSV) {
            run_csv(stdout, st, ncol, &rc);
        } else if (mode == MODE_JSON) {
            run_json(stdout, st, ncol, &rc);
        } else {
            run_table(stdout, st, ncol, &rc);
        }
        if (rc != SQLITE_DONE) {
            QueryDb_stepError(q, from, &e);
            sqlite3_finalize(st);
            print_error(where, sql, &e);
            return false;
        }
        sqlite3_finalize(st);
        from = next;
    }
}

/* ---------- prompt and scripts ---------- */

static void print_schema(const char *name) {
    for (size_t i = 0; i < QueryDb_tableCount(); i++)
        if (!name || !strcmp(name, QueryDb_tableName(i))) printf("%s;\n", QueryDb_tableSchema(i));
}

/* A line starting with '.': 0 handled, 1 quit, -1 unknown (an error). */
static int dot_command(const char *line, OutMode *mode) {
    char cmd[32] = "", arg[64] = "";
    sscanf(line, ".%31s %63s", cmd, arg);
    if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) return 1;
    if (!strcmp(cmd, "tables")) {
        for (size_t i = 0; i < QueryDb_tableCount(); i++) printf("%s%s", i ? "  " : "", QueryDb_tableName(i));
        printf("\n");
    } else if (!strcmp(cmd, "schema")) {
        print_schema(arg[0] ? arg : NULL);
    } else if (!strcmp(cmd, "mode") && (!strcmp(arg, "table") || !strcmp(arg, "csv") || !strcmp(arg, "json"))) {
        *mode = arg[0] == 't' ? MODE_TABLE : arg[0] == 'c' ? MODE_CSV : MODE_JSON;
    } else if (!strcmp(cmd, "help")) {
        printf(".tables            the tables\n.schema [TABLE]    their columns\n"
               ".mode table|csv|json  how results print\n.quit              leave (also Ctrl-D)\n"
               "SQL ends with ';'. docs/sql.md lists the tables and example queries.\n");
    } else {
        char safe[256];
        cli_error("unknown command '%s' (.help lists them)", TermSafe_str(line, safe, sizeof safe));
        return -1;
    }
    return 0;
}

/* At the prompt, Ctrl-C stops the statement that runs (SQLite: "interrupted") or drops
 * the input typed so far, and the prompt goes on; Ctrl-D or .quit ends the session. */
static sqlite3 *g_running_db;
static volatile sig_atomic_t g_interrupted;
static void on_interrupt(int sig) {
    (void)sig;
    g_interrupted = 1;
    if (g_running_db) sqlite3_interrupt(g_running_db); /* safe from a signal handler */
}

typedef char *(*ReadLineFn)(const char *prompt);

/* The line without its newline, malloc'd; NULL at the end of input. */
static char *read_stdin_line(const char *prompt) {
    (void)prompt;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n && line[n - 1] == '\n') line[n - 1] = '\0';
    return line;
}

/* Statements end at a ';' that completes them (sqlite3_complete); dot commands are
 * whole lines. interactive: errors are printed and the prompt goes on; a script stops
 * at its first error. */
static int repl(QueryDb *q, ReadLineFn rd, bool interactive, OutMode mode) {
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    struct sigaction old, sa;
    if (interactive) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old);
        g_running_db = QueryDb_sqlite(q);
    }
    for (;;) {
        g_interrupted = 0;
        char *line = rd(len ? "   ...> " : "ovtrace> ");
        if (!line && interactive && g_interrupted) { /* Ctrl-C at the prompt: drop the input */
            fputc('\n', stdout);
            len = 0;
            continue;
        }
        if (!line) break;
        if (!len && line[strspn(line, " \t")] == '.') {
            if (interactive) add_history(line);
            int d = dot_command(line + strspn(line, " \t"), &mode);
            free(line);
            fflush(stdout);
            if (d == 1) break;
            if (d < 0 && !interactive) {
                rc = 1;
                break;
            }
            continue;
        }
        size_t n = strlen(line);
        GROW(buf, cap, len + n + 2);
        memcpy(buf + len, line, n);
        len += n;
        buf[len++] = '\n';
        buf[len] = '\0';
        free(line);
        if (!sqlite3_complete(buf)) continue;
        if (interactive) {
            buf[len - 1] = '\0';
            add_history(buf);
        }
        bool ok = run_sql(q, buf, mode, "");
        fflush(stdout);
        len = 0;
        if (!ok && !interactive) {
            rc = 1;
            break;
        }
    }
    if (!rc && len && buf[strspn(buf, " \t\n")]) rc = run_sql(q, buf, mode, "") ? 0 : 1; /* no final ';' */
    if (interactive) {
        sigaction(SIGINT, &old, NULL);
        g_running_db = NULL;
    }
    free(buf);
    return rc;
}

/* ---------- the command ---------- */

enum { QU_COMMAND = 100, QU_CSV, QU_JSON };

static const OptSpec QUERY_OPTIONS[] = {
    {"--command", 'c', true, QU_COMMAND, NULL, false},
    {"--csv", 0, false, QU_CSV, NULL, false},
    {"--json", 0, false, QU_JSON, NULL, false},
    {0},
};
const OptSpec *const QUERY_TABLES[] = {QUERY_OPTIONS, INPUT_OPTIONS, NULL};

typedef struct {
    InputOptions in;
    const char **sql;
    size_t n_sql, cap_sql;
    OutMode mode;
} QueryArgs;

static int query_opt(void *ctx, const OptSpec *s, const char *v) {
    QueryArgs *A = ctx;
    if (!s || s->id < QU_COMMAND) return InputOptions_apply(&A->in, s, v);
    if (s->id == QU_COMMAND) {
        GROW(A->sql, A->cap_sql, A->n_sql + 1);
        A->sql[A->n_sql++] = v;
    } else {
        A->mode = s->id == QU_CSV ? MODE_CSV : MODE_JSON;
    }
    return 0;
}

static bool reads_stdin(const InputOptions *in) {
    for (size_t i = 0; i < in->n_files; i++)
        if (!strcmp(in->files[i], "-")) return true;
    return false;
}

int cmd_query(int argc, char **argv) {
    QueryArgs A = {.mode = MODE_TABLE};
    InputOptions_init(&A.in);
    int rc = Cli_parseOptions("query", argc, argv, QUERY_TABLES, query_opt, &A, NULL);
    if (rc) goto out;
    if (!InputOptions_needFiles(&A.in, "query", "ovtrace query FILE... [-c SQL]...")) {
        rc = 2;
        goto out;
    }
    if (!A.n_sql && reads_stdin(&A.in)) {
        cli_error("the trace comes on standard input: give the SQL with -c");
        rc = 2;
        goto out;
    }
    Trace *t = InputOptions_load(&A.in);
    if (!t) {
        rc = 1;
        goto out;
    }
    if (!cli_notSummary(t, "query", A.in.files[0])) {
        Trace_free(t);
        rc = 2;
        goto out;
    }
    char err[512];
    QueryOptions qo = {A.in.coll, 0};
    QueryDb *q = QueryDb_open(t, &qo, err, sizeof err);
    if (!q) {
        cli_error("%s", err);
        Trace_free(t);
        rc = 1;
        goto out;
    }
    rc = 0;
    for (size_t i = 0; i < A.n_sql && !rc; i++) {
        char where[32] = "";
        if (A.n_sql > 1) snprintf(where, sizeof where, "-c %zu: ", i + 1);
        if (!run_sql(q, A.sql[i], A.mode, where)) rc = 1;
    }
    if (!A.n_sql) {
        bool tty = isatty(STDIN_FILENO);
        rc = repl(q, tty ? readline : read_stdin_line, tty, A.mode);
    }
    QueryDb_close(q);
    Trace_free(t);
out:
    free(A.sql);
    InputOptions_free(&A.in);
    return rc;
}
