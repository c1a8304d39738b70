/* Terminal set-up, teardown, signals, key input and painting (see crt.h). */
#include "crt.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define NCURSES_WIDECHAR 1
#include <curses.h>

static volatile sig_atomic_t g_active = 0;
static volatile sig_atomic_t g_signal = 0;
static attr_t g_attr[ROLE__COUNT];
static short g_pair[ROLE__COUNT];

Caps Crt_detectCaps(ColorMode mode, bool force_ascii) {
    Caps c = {true, 256};
    const char *term = getenv("TERM");
    bool dumb = !term || !*term || !strcmp(term, "dumb") || !strncmp(term, "vt1", 3) || !strncmp(term, "vt2", 3) ||
                !strcmp(term, "vt52");
    const char *cs = nl_langinfo(CODESET);
    bool utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    c.unicode = !force_ascii && utf8 && !dumb;
    const char *nc = getenv("NO_COLOR");
    if (mode == COLOR_MODE_NONE || (mode == COLOR_MODE_AUTO && ((nc && *nc) || dumb))) c.colors = 0;
    else if (mode == COLOR_MODE_16) c.colors = 16;
    else c.colors = 256;
    return c;
}

bool Crt_active(void) { return g_active != 0; }

void Crt_done(void) {
    if (!g_active) return;
    g_active = 0;
    printf("\033[?1000l\033[?1002l\033[?1006l"); /* mouse reporting off, in case curses did not */
    fflush(stdout);
    curs_set(1);
    endwin();
}

static void on_term(int sig) { g_signal = sig; }

static void on_fatal(int sig) {
    /* restore the terminal, then die of the same signal */
    if (g_active) {
        g_active = 0;
        static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1003l\033[?1006l";
        ssize_t w = write(STDOUT_FILENO, mouse_off, sizeof mouse_off - 1);
        (void)w;
        endwin();
    }
    static const char msg[] = "ovtrace: fatal signal; terminal restored\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_term; /* no SA_RESTART: getch returns so the loop can exit */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) sigaction(fatal[i], &sa, NULL);
    /* the other signals whose default action ends the process (kill -USR1, an alarm, a
     * closed pipe): same restore-and-die, except where the signal was ignored when we
     * started (nohup, trap '' SIG), which is kept */
    int deadly[] = {SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE, SIGXCPU, SIGXFSZ};
    for (size_t i = 0; i < sizeof deadly / sizeof deadly[0]; i++) {
        struct sigaction old;
        if (sigaction(deadly[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
            sigaction(deadly[i], &sa, NULL);
    }
}

/* colours: 256-colour palette index, 8/16-colour fallback */
typedef struct {
    short fg256, bg256, fg16, bg16;
    attr_t attr, mono;
} RoleStyle;

static RoleStyle style_of(int role) {
    const short D = -1;
    switch (role) {
    case ROLE_DIM: return (RoleStyle){243, D, COLOR_WHITE, D, 0, A_DIM};
    case ROLE_TITLE: return (RoleStyle){231, 24, COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE};
    case ROLE_RULER: return (RoleStyle){250, D, COLOR_WHITE, D, 0, 0};
    case ROLE_RULER_LABEL: return (RoleStyle){253, D, COLOR_WHITE, D, A_BOLD, 0};
    case ROLE_CURSOR: return (RoleStyle){226, D, COLOR_YELLOW, D, A_BOLD, A_BOLD};
    case ROLE_RANGE: return (RoleStyle){16, 45, COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE};
    case ROLE_GROUP: return (RoleStyle){231, 238, COLOR_WHITE, COLOR_BLACK, A_BOLD, A_BOLD};
    case ROLE_GROUP_SEL: return (RoleStyle){16, 153, COLOR_BLACK, COLOR_WHITE, A_BOLD, A_REVERSE};
    case ROLE_LABEL: return (RoleStyle){252, D, COLOR_WHITE, D, 0, 0};
    case ROLE_LABEL_SEL: return (RoleStyle){16, 153, COLOR_BLACK, COLOR_WHITE, A_BOLD, A_REVERSE};
    case ROLE_MATCH: return (RoleStyle){226, D, COLOR_YELLOW, D, A_BOLD, A_BOLD | A_UNDERLINE};
    case ROLE_MATCH_TEXT: return (RoleStyle){16, 226, COLOR_BLACK, COLOR_YELLOW, 0, A_UNDERLINE | A_REVERSE};
    case ROLE_SELECTED: return (RoleStyle){231, D, COLOR_WHITE, D, A_BOLD, A_BOLD | A_BLINK};
    case ROLE_SELECTED_TEXT: return (RoleStyle){16, 231, COLOR_BLACK, COLOR_WHITE, A_BOLD, A_BOLD | A_UNDERLINE};
    case ROLE_PANEL: return (RoleStyle){252, D, COLOR_WHITE, D, 0, 0};
    case ROLE_PANEL_TITLE: return (RoleStyle){231, D, COLOR_WHITE, D, A_BOLD, A_BOLD};
    case ROLE_PANEL_KEY: return (RoleStyle){110, D, COLOR_CYAN, D, 0, A_BOLD};
    case ROLE_STATUS: return (RoleStyle){252, 236, COLOR_WHITE, COLOR_BLACK, 0, 0};
    case ROLE_STATUS_KEY: return (RoleStyle){229, 236, COLOR_YELLOW, COLOR_BLACK, A_BOLD, A_BOLD};
    case ROLE_PROMPT: return (RoleStyle){231, 236, COLOR_WHITE, COLOR_BLACK, 0, A_BOLD};
    case ROLE_ERROR: return (RoleStyle){203, 236, COLOR_RED, COLOR_BLACK, A_BOLD, A_BOLD};
    case ROLE_GOOD: return (RoleStyle){114, D, COLOR_GREEN, D, 0, 0};
    case ROLE_BAD: return (RoleStyle){203, D, COLOR_RED, D, A_BOLD, A_BOLD};
    default: break;
    }
    /* event classes: compute, comm, memory, sync, cpu, annotation, other */
    static const short C256[CLASS__COUNT] = {75, 208, 178, 167, 109, 246, 250};
    static const short C16[CLASS__COUNT] = {COLOR_BLUE, COLOR_MAGENTA, COLOR_YELLOW, COLOR_RED,
                                            COLOR_CYAN, COLOR_WHITE,   COLOR_WHITE};
    if (role >= ROLE_CLASS && role < ROLE_CLASS + CLASS__COUNT) {
        int c = role - ROLE_CLASS;
        return (RoleStyle){C256[c], D, C16[c], D, 0, 0};
    }
    if (role >= ROLE_CLASS_TEXT && role < ROLE_CLASS_TEXT + CLASS__COUNT) {
        int c = role - ROLE_CLASS_TEXT;
        return (RoleStyle){16, C256[c], COLOR_BLACK, C16[c], 0, A_REVERSE};
    }
    /* band: idle, compute, hidden, exposed, memory */
    static const short B256[BAND__COUNT] = {239, 33, 41, 196, 178};
    static const short B16[BAND__COUNT] = {COLOR_WHITE, COLOR_BLUE, COLOR_GREEN, COLOR_RED, COLOR_YELLOW};
    if (role >= ROLE_BAND && role < ROLE_BAND + BAND__COUNT) {
        int s = role - ROLE_BAND;
        return (RoleStyle){B256[s], D, B16[s], D, s == BAND_EXPOSED ? A_BOLD : 0, 0};
    }
    return (RoleStyle){D, D, D, D, 0, 0};
}

static void setup_colors(Caps *caps) {
    if (caps->colors && has_colors()) {
        start_color();
        use_default_colors();
        if (COLORS < 256 && caps->colors == 256) caps->colors = COLORS >= 16 ? 16 : 8;
        if (COLORS < 8) caps->colors = 0;
    } else {
        caps->colors = 0;
    }
    for (int r = 0; r < ROLE__COUNT; r++) {
        RoleStyle s = style_of(r);
        g_pair[r] = 0;
        if (caps->colors == 0) {
            g_attr[r] = s.mono;
            continue;
        }
        short fg = caps->colors >= 256 ? s.fg256 : s.fg16, bg = caps->colors >= 256 ? s.bg256 : s.bg16;
        if (r + 1 < COLOR_PAIRS) {
            init_pair((short)(r + 1), fg, bg);
            g_pair[r] = (short)(r + 1);
        }
        g_attr[r] = s.attr;
    }
}

/* ncurses sizes its screen from $LINES/$COLUMNS when they are set, else from the
 * terminal; a size beyond any real screen (LINES=20000 COLUMNS=20000 reached 24 GB) is
 * clamped to CRT_MAX_ROWS x CRT_MAX_COLS before initscr reads it. Pure. */
bool Crt_clampSize(const char *lines, const char *cols, int tty_rows, int tty_cols, int *rows, int *ncols) {
    long r = lines && *lines ? strtol(lines, NULL, 10) : tty_rows;
    long c = cols && *cols ? strtol(cols, NULL, 10) : tty_cols;
    if (r <= CRT_MAX_ROWS && c <= CRT_MAX_COLS) return false;
    *rows = r <= 0 ? 24 : r > CRT_MAX_ROWS ? CRT_MAX_ROWS : (int)r;
    *ncols = c <= 0 ? 80 : c > CRT_MAX_COLS ? CRT_MAX_COLS : (int)c;
    return true;
}

/* Runs before initscr, on the thread that owns the terminal: the environment is set
 * only when a size must be clamped. */
static void clamp_size(void) {
    struct winsize ws = {0};
    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
    int r, c;
    if (!Crt_clampSize(getenv("LINES"), getenv("COLUMNS"), ws.ws_row, ws.ws_col, &r, &c)) return;
    char b[16];
    snprintf(b, sizeof b, "%d", r);
    setenv("LINES", b, 1);
    snprintf(b, sizeof b, "%d", c);
    setenv("COLUMNS", b, 1);
}

bool Crt_init(Caps *caps) {
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "ovtrace: error: the viewer needs a terminal (use --dump for text output)\n");
        return false;
    }
    if (!getenv("ESCDELAY")) set_escdelay(25);
    clamp_size();
    if (!initscr()) {
        fprintf(stderr, "ovtrace: error: cannot initialise the terminal\n");
        return false;
    }
    g_active = 1;
    atexit(Crt_done);
    install_signals();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    intrflush(stdscr, FALSE);
    curs_set(0);
    /* press, motion and release apart (mouseinterval 0: no clicks made up of them), so
     * that a drag on the timeline marks a range and one on the ruler pans */
    mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED | REPORT_MOUSE_POSITION, NULL);
    printf("\033[?1002h"); /* button-event tracking: motion while a button is held */
    fflush(stdout);
    mouseinterval(0);
    setup_colors(caps);
    return true;
}

void Crt_size(int *w, int *h) {
    getmaxyx(stdscr, *h, *w);
}

int Crt_signal(void) { return g_signal; }

bool Crt_readKey(TuiKey *k, int timeout_ms) {
    *k = (TuiKey){0, 0, 0};
    if (g_signal) {
        k->code = TK_INTERRUPT;
        return true;
    }
    timeout(timeout_ms);
    wint_t ch;
    int r = get_wch(&ch);
    if (g_signal) {
        k->code = TK_INTERRUPT;
        return true;
    }
    if (r == ERR) return false;
    if (r == KEY_CODE_YES) {
        switch (ch) {
        case KEY_LEFT: k->code = TK_LEFT; break;
        case KEY_RIGHT: k->code = TK_RIGHT; break;
        case KEY_UP: k->code = TK_UP; break;
        case KEY_DOWN: k->code = TK_DOWN; break;
        case KEY_SLEFT: k->code = TK_SLEFT; break;
        case KEY_SRIGHT: k->code = TK_SRIGHT; break;
        case KEY_SR: k->code = TK_SUP; break;
        case KEY_SF: k->code = TK_SDOWN; break;
        case KEY_PPAGE: k->code = TK_PGUP; break;
        case KEY_NPAGE: k->code = TK_PGDN; break;
        case KEY_HOME: k->code = TK_HOME; break;
        case KEY_END: k->code = TK_END; break;
        case KEY_BTAB: k->code = TK_BTAB; break;
        case KEY_ENTER: k->code = TK_ENTER; break;
        case KEY_BACKSPACE: k->code = TK_BACKSPACE; break;
        case KEY_DC: k->code = TK_DELETE; break;
        case KEY_F(1): k->code = TK_F1; break;
        case KEY_RESIZE: k->code = TK_RESIZE; break;
        case KEY_MOUSE: {
            MEVENT me;
            if (getmouse(&me) != OK) return false;
            k->x = me.x;
            k->y = me.y;
            static bool down; /* button 1 is held: motion is a drag */
            if (me.bstate & BUTTON4_PRESSED) k->code = TK_WHEEL_UP;
            else if (me.bstate & BUTTON5_PRESSED) k->code = TK_WHEEL_DOWN;
            else if (me.bstate & BUTTON1_PRESSED) k->code = TK_PRESS, down = true;
            else if (me.bstate & BUTTON1_RELEASED) k->code = TK_RELEASE, down = false;
            else if (me.bstate & BUTTON1_CLICKED) k->code = TK_CLICK;
            else if ((me.bstate & REPORT_MOUSE_POSITION) && down) k->code = TK_DRAG;
            else return false;
            break;
        }
        default:
            if (ch == 0x218 || ch == 0x219) k->code = ch == 0x218 ? TK_SUP : TK_SDOWN; /* kUP / kDN on xterm */
            else return false;
        }
        return true;
    }
    if (ch == '\r' || ch == '\n') k->code = TK_ENTER;
    else if (ch == 127 || ch == 8) k->code = TK_BACKSPACE;
    else k->code = (int)ch;
    return true;
}

void Crt_paint(const Grid *g, bool full) {
    if (!g_active) return;
    if (full) clearok(curscr, TRUE);
    int h, w;
    getmaxyx(stdscr, h, w);
    for (int y = 0; y < g->h && y < h; y++) {
        for (int x = 0; x < g->w && x < w; x++) {
            if (y == h - 1 && x == w - 1) continue; /* writing the last cell scrolls some terminals */
            const Cell *c = Grid_cat(g, x, y);
            wchar_t wc[2] = {(wchar_t)c->ch, 0};
            attr_t at = g_attr[c->role < ROLE__COUNT ? c->role : 0];
            if (c->attr & ATTR_BOLD) at |= A_BOLD;
            if (c->attr & ATTR_REVERSE) at |= A_REVERSE;
            if (c->attr & ATTR_UNDERLINE) at |= A_UNDERLINE;
            cchar_t cc;
            setcchar(&cc, wc, at, g_pair[c->role < ROLE__COUNT ? c->role : 0], NULL);
            mvadd_wch(y, x, &cc);
        }
    }
    wnoutrefresh(stdscr);
    doupdate();
}
