#include "localgpu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/text.h"

extern char **environ;

/* The memory a GPU can report, 1 MiB to 16 TiB (the most a preset may hold):
 * a figure outside is a misread or a broken tool, never a card. */
static const uint64_t memory_min_bytes = (uint64_t)1 << 20;
static const uint64_t memory_max_bytes = (uint64_t)1 << 44;

/* A driver tool: what to run and how its answer reads. nvidia-smi prints a
 * "name, MiB" line for each GPU; rocm-smi a CSV table whose header names the
 * columns (their order changes with its flags and its version), memory in
 * bytes. Each runs by itself, not in a pipeline, so its own status is seen. */
struct tool {
    const char *name;
    char *const *argv;
    const char *unit; /* what its memory figure counts */
    uint64_t unit_bytes;
    bool table;
};

static char *const nvidia_argv[] = {"nvidia-smi", "--query-gpu=name,memory.total",
                                    "--format=csv,noheader,nounits", NULL};
static char *const rocm_argv[] = {"rocm-smi", "--showproductname", "--showmeminfo", "vram",
                                  "--csv", NULL};
static const struct tool nvidia_smi = {"nvidia-smi", nvidia_argv, "MiB", (uint64_t)1 << 20, false};
static const struct tool rocm_smi = {"rocm-smi", rocm_argv, "B", 1, true};

/* Lowercase words of letters and digits: "NVIDIA H100 80GB HBM3" -> nvidia h100 80gb hbm3 */
static int words(const char *s, char out[][32], int max)
{
    int n = 0;
    while (*s && n < max) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        int k = 0;
        while (*s && isalnum((unsigned char)*s)) {
            if (k < 31)
                out[n][k++] = (char)tolower((unsigned char)*s);
            s++;
        }
        if (k) {
            out[n][k] = '\0';
            n++;
        }
    }
    return n;
}

/* How a driver tool's run ended: RUN_NOT_RUN when it could not be started or
 * read (ENOENT: it is absent), RUN_FAILED when it exited non-zero or died. */
enum run_end { RUN_OK, RUN_NOT_RUN, RUN_FAILED, RUN_TIMEOUT, RUN_TOO_BIG, RUN_TOO_MANY };

struct run_result {
    enum run_end end;
    int status; /* the wait status, for RUN_FAILED */
    int error;  /* the errno, for RUN_NOT_RUN */
};

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Starts argv (found on PATH) in a process group of its own (so a timeout
 * can stop all it started), stdin and stderr on /dev/null, stdout into *fd;
 * -1 with *error set when it cannot start. */
static pid_t spawn(char *const argv[], int *fd, int *error)
{
    int p[2];
    if (pipe(p) != 0) {
        *error = errno;
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t dfl;
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigdefault(&at, &dfl);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        *error = rc;
        return -1;
    }
    *fd = p[0];
    return pid;
}

/* Reads fd to its end into buf (at most LOCALGPU_MAX_BYTES, then NUL) before
 * the deadline, refusing more bytes or more lines than a host can have. */
static enum run_end collect(int fd, long long deadline, unsigned max_lines, char *buf,
                            size_t *len)
{
    unsigned lines = 0;
    *len = 0;
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return RUN_TIMEOUT;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 ? RUN_TIMEOUT : RUN_NOT_RUN;
        ssize_t n = read(fd, buf + *len, LOCALGPU_MAX_BYTES + 1 - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            buf[*len] = '\0';
            return n == 0 ? RUN_OK : RUN_NOT_RUN;
        }
        for (ssize_t i = 0; i < n; i++)
            lines += buf[*len + (size_t)i] == '\n';
        *len += (size_t)n;
        if (lines > max_lines)
            return RUN_TOO_MANY;
        if (*len > LOCALGPU_MAX_BYTES)
            return RUN_TOO_BIG;
    }
}

/* Waits for pid until the deadline; true with its status when it ended. */
static bool reap(pid_t pid, long long deadline, int *status)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
        if (now_ms() >= deadline)
            return false;
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000000}, NULL);
    }
}

/* Runs the tool, its whole output in buf (a table has a header line more);
 * RUN_OK only when it exited 0. */
static struct run_result run(const struct tool *t, char *buf)
{
    struct run_result res = {.end = RUN_OK};
    int fd = -1;
    buf[0] = '\0';
    pid_t pid = spawn(t->argv, &fd, &res.error);
    if (pid < 0) {
        res.end = RUN_NOT_RUN;
        return res;
    }
    long long deadline = now_ms() + LOCALGPU_TIMEOUT_MS;
    size_t len = 0;
    res.end = collect(fd, deadline, LOCALGPU_MAX_GPUS + (t->table ? 1u : 0u), buf, &len);
    if (res.end == RUN_NOT_RUN)
        res.error = errno;
    close(fd);
    if (res.end == RUN_OK && !reap(pid, deadline, &res.status))
        res.end = RUN_TIMEOUT;
    if (res.end != RUN_OK) {
        kill(-pid, SIGKILL); /* the tool and whatever it started */
        while (waitpid(pid, &res.status, 0) < 0 && errno == EINTR)
            ;
        return res;
    }
    if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0)
        res.end = RUN_FAILED;
    return res;
}

/* Copies a name as read, dropping control characters and bytes that are not
 * UTF-8: the driver's text is never trusted to reach a terminal. */
static void clean_name(const char *in, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t o = 0;
    while (*p) {
        unsigned cp = 0;
        size_t n = text_utf8_decode(p, &cp);
        if (n == 0) {
            p++;
            continue;
        }
        if (o + n >= size)
            break; /* cut at a whole character */
        if (!text_unsafe_char(cp)) {
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
    }
    if (size > 0)
        out[o] = '\0';
}

/* The text without the blanks around it, cut in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    s[n] = '\0';
    return s;
}

/* One kind of GPU a tool lists: a name and a memory total, and how many. */
struct kind {
    char name[160];
    uint64_t bytes;
    unsigned count;
};

/* What a driver tool reported, or (why) why it gave no answer: "is absent",
 * "exited with status 3 ...". failed: it did not end well, so it is named. */
struct reading {
    struct kind kind[LOCALGPU_MAX_GPUS];
    unsigned kinds, count;
    char why[192];
    bool failed;
};

/* A query's outcome: GPUs heard, none (r->why says why, another tool may
 * answer), or an answer refused (d says why; no other tool is asked). */
enum verdict { HEARD, SILENT, REFUSED };

/* The figure in units of unit_bytes, as digits only, if a GPU can have it. */
static bool parse_size(const char *s, uint64_t unit_bytes, uint64_t *bytes)
{
    uint64_t v = 0;
    if (*s == '\0')
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > memory_max_bytes / unit_bytes)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v > memory_max_bytes / unit_bytes)
        return false;
    *bytes = v * unit_bytes;
    return *bytes >= memory_min_bytes;
}

/* Counts a GPU under its kind (the same cleaned name and memory). */
static void add_gpu(struct reading *r, const char *name, uint64_t bytes)
{
    char clean[sizeof r->kind[0].name];
    clean_name(name, clean, sizeof clean);
    r->count++;
    for (unsigned i = 0; i < r->kinds; i++)
        if (r->kind[i].bytes == bytes && strcmp(r->kind[i].name, clean) == 0) {
            r->kind[i].count++;
            return;
        }
    if (r->kinds == LOCALGPU_MAX_GPUS)
        return; /* more lines than that were refused as they came in */
    struct kind *k = &r->kind[r->kinds++];
    memcpy(k->name, clean, sizeof clean);
    k->bytes = bytes;
    k->count = 1;
}

/* Splits line at its commas into at most max fields; how many. */
static int split(char *line, char *field[], int max)
{
    int n = 0;
    for (char *s = line; n < max; s++) {
        field[n++] = s;
        s = strchr(s, ',');
        if (s == NULL)
            break;
        *s = '\0';
    }
    return n;
}

/* A table's header: which columns hold the name and the memory total
 * (-1 when absent); false when line is no header ("device,..."). */
static bool table_header(char *line, int col[2])
{
    char *f[64];
    int n = split(line, f, 64);
    if (strcasecmp(trim(f[0]), "device") != 0)
        return false;
    col[0] = col[1] = -1;
    for (int i = 1; i < n; i++) {
        const char *h = trim(f[i]);
        if (strcasecmp(h, "Card Series") == 0)
            col[0] = i;
        else if (strcasecmp(h, "VRAM Total Memory (B)") == 0)
            col[1] = i;
    }
    return true;
}

/* The name and memory fields of a GPU's line; false for a line that names
 * no GPU (blank, or no comma in nvidia-smi's lines). */
static bool gpu_fields(const struct tool *t, char *line, const int col[2], char **name,
                       char **size)
{
    if (*trim(line) == '\0')
        return false;
    if (!t->table) {
        char *comma = strrchr(line, ',');
        if (comma == NULL)
            return false;
        *comma = '\0';
        *name = trim(line);
        *size = trim(comma + 1);
        return true;
    }
    char *f[64];
    int n = split(line, f, 64);
    *name = col[0] < n ? trim(f[col[0]]) : "";
    *size = col[1] < n ? trim(f[col[1]]) : "";
    return true;
}

/* Why a tool's answer is refused: too slow, too long, too many lines. */
static bool refuse(struct diag *d, const char *tool, enum run_end e)
{
    if (e == RUN_TIMEOUT)
        return diag_fail(d, "--gpu auto: %s did not answer within %d s and was stopped; name the "
                            "GPU instead (kvplan list gpus)", tool, LOCALGPU_TIMEOUT_MS / 1000);
    if (e == RUN_TOO_BIG)
        return diag_fail(d, "--gpu auto: %s printed more than %d bytes (a line for each of at most "
                            "%d GPUs); name the GPU instead (kvplan list gpus)", tool,
                         LOCALGPU_MAX_BYTES, LOCALGPU_MAX_GPUS);
    return diag_fail(d, "--gpu auto: %s lists more than %d GPUs, more than a host holds; name "
                        "the GPU and --gpus instead", tool, LOCALGPU_MAX_GPUS);
}

/* Refuses a memory figure no GPU has, quoting it (cleaned) and its line. */
static bool refuse_size(const struct tool *t, const char *size, unsigned line, struct diag *d)
{
    char shown[48];
    text_sanitize(size, shown, sizeof shown);
    return diag_fail(d, "--gpu auto: %s reported an impossible size '%s' %s on line %u (a GPU "
                        "has 1 MiB to 16 TiB); name the GPU instead (--gpu ID --gpus N, see "
                        "kvplan list gpus)", t->name, shown, t->unit, line);
}

/* Reads a tool's output into r: the kinds of GPU it lists, how many of each. */
static enum verdict read_answer(const struct tool *t, char *out, struct reading *r,
                                struct diag *d)
{
    int col[2] = {0, 0};
    bool in_table = !t->table;
    unsigned line = 0;
    for (char *next = out; *next;) {
        char *s = next, *nl = strchr(s, '\n');
        next = nl ? nl + 1 : s + strlen(s);
        if (nl)
            *nl = '\0';
        line++;
        char *name, *size;
        if (!in_table) {
            in_table = table_header(s, col);
            if (in_table && (col[0] < 0 || col[1] < 0)) {
                snprintf(r->why, sizeof r->why, "prints no 'Card Series' and 'VRAM Total "
                                                "Memory (B)' columns");
                return SILENT;
            }
            continue;
        }
        if (!gpu_fields(t, s, col, &name, &size))
            continue;
        uint64_t bytes = 0;
        if (!parse_size(size, t->unit_bytes, &bytes)) {
            refuse_size(t, size, line, d);
            return REFUSED;
        }
        add_gpu(r, name, bytes);
    }
    if (r->count > LOCALGPU_MAX_GPUS) { /* a last line without its newline */
        refuse(d, t->name, RUN_TOO_MANY);
        return REFUSED;
    }
    if (r->count == 0)
        snprintf(r->why, sizeof r->why, "lists no GPU");
    return r->count > 0 ? HEARD : SILENT;
}

/* Why a tool that ran gives no answer: how it ended, and the first line it
 * printed (cleaned), which is where nvidia-smi says what went wrong. */
static void describe_failure(const struct run_result *res, const char *out, struct reading *r)
{
    char said[200] = "", shown[88] = "", ended[64];
    const char *s = out + strspn(out, " \t\r\n");
    size_t n = strcspn(s, "\r\n");
    memcpy(said, s, n < sizeof said - 1 ? n : sizeof said - 1);
    text_sanitize(said, shown, sizeof shown);
    if (WIFSIGNALED(res->status))
        snprintf(ended, sizeof ended, "was killed by signal %d (%s)", WTERMSIG(res->status),
                 strsignal(WTERMSIG(res->status)));
    else
        snprintf(ended, sizeof ended, "exited with status %d", WEXITSTATUS(res->status));
    snprintf(r->why, sizeof r->why, shown[0] ? "%s after printing '%s'" : "%s", ended, shown);
}

/* Runs a tool and reads its answer into r. A tool that fails is not
 * believed, whatever it printed before. */
static enum verdict query(const struct tool *t, struct reading *r, struct diag *d)
{
    static char out[LOCALGPU_MAX_BYTES + 2];
    *r = (struct reading){.kinds = 0};
    struct run_result res = run(t, out);
    switch (res.end) {
    case RUN_OK:
        return read_answer(t, out, r, d);
    case RUN_NOT_RUN:
        r->failed = res.error != ENOENT;
        snprintf(r->why, sizeof r->why, r->failed ? "could not be run (%s)" : "is absent",
                 strerror(res.error));
        return SILENT;
    case RUN_FAILED:
        r->failed = true;
        describe_failure(&res, out, r);
        return SILENT;
    default:
        refuse(d, t->name, res.end);
        return REFUSED;
    }
}

/* The preset whose name shares most words with the driver's, nearest in
 * memory among equals; -1 when none shares two words (the vendor alone). */
static int best_preset(const struct catalog *c, const struct kind *k)
{
    char want[16][32];
    int nw = words(k->name, want, 16);
    int best = -1, best_score = 0;
    long long best_gap = 0;
    for (size_t i = 0; i < c->gpu_count; i++) {
        const struct gpu_spec *g = &c->gpus[i].spec;
        char have[24][32];
        char both[SPEC_NAME_MAX + SPEC_ID_MAX + 2];
        snprintf(both, sizeof both, "%s %s", g->name, g->id);
        int nh = words(both, have, 24), score = 0;
        for (int a = 0; a < nw; a++)
            for (int b = 0; b < nh; b++)
                if (strcmp(want[a], have[b]) == 0) {
                    score++;
                    break;
                }
        /* the driver names the PCIe and NVL cards so ("NVIDIA H100 PCIe"); the SXM
         * part is "NVIDIA H100 80GB HBM3": a form factor it does not name is not this card */
        for (int b = 0; b < nh; b++)
            if (strcmp(have[b], "pcie") == 0 || strcmp(have[b], "nvl") == 0) {
                bool named = false;
                for (int a = 0; a < nw; a++)
                    named = named || strcmp(want[a], have[b]) == 0;
                if (!named)
                    score = 0;
            }
        long long gap = llabs((long long)(g->memory_bytes >> 20) - (long long)(k->bytes >> 20));
        if (score > best_score || (score == best_score && score > 0 && gap < best_gap)) {
            best = (int)i;
            best_score = score;
            best_gap = gap;
        }
    }
    return best_score < 2 ? -1 : best;
}

/* Appends to the text in buf (size bytes), cut when full. */
static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t at = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + at, size - at, fmt, ap);
    va_end(ap);
}

/* Refuses a machine of several kinds of GPU: a plan is for one kind, and
 * which one (and how many) only the user knows. Names the first few kinds
 * with their counts and the --gpu that plans each. */
static bool refuse_mixed(const struct catalog *c, const char *tool, const struct reading *r,
                         struct diag *d)
{
    enum { SHOWN = 3 };
    char kinds[256] = "", use[160] = "";
    for (unsigned i = 0; i < r->kinds && i < SHOWN; i++) {
        const struct kind *k = &r->kind[i];
        char name[32];
        text_sanitize(k->name, name, sizeof name);
        append(kinds, sizeof kinds, "%s%u x %s (%llu MiB)", i ? ", " : "", k->count, name,
               (unsigned long long)(k->bytes >> 20));
        int p = best_preset(c, k);
        if (p >= 0)
            append(use, sizeof use, "%s--gpu %s --gpus %u", use[0] ? " or " : "",
                   c->gpus[p].spec.id, k->count);
    }
    if (r->kinds > SHOWN)
        append(kinds, sizeof kinds, " and %u more", r->kinds - SHOWN);
    return diag_fail(d, "--gpu auto: %s lists %u kinds of GPU: %s; a plan is for one kind: name "
                        "the one you mean with --gpu ID --gpus N (%s%skvplan list gpus)", tool,
                     r->kinds, kinds, use, use[0] ? "; " : "");
}

/* Neither tool answered: what each did, a failure first. */
static bool refuse_silent(const struct reading *nv, const struct reading *rocm, struct diag *d)
{
    if (nv->failed || rocm->failed)
        return diag_fail(d, "--gpu auto: nvidia-smi %s, and rocm-smi %s; a tool that fails is "
                            "not believed: name the GPU instead (--gpu ID --gpus N, see kvplan "
                            "list gpus)", nv->why, rocm->why);
    return diag_fail(d, "--gpu auto: no GPU found on this machine (nvidia-smi %s, rocm-smi %s); "
                        "name a preset instead (kvplan list gpus)", nv->why, rocm->why);
}

bool localgpu_detect(const struct catalog *c, struct gpu_spec *out, unsigned *count,
                     struct diag *d)
{
    static struct reading nv, rocm; /* a kind for each GPU a host may hold */
    const struct tool *t = &nvidia_smi;
    struct reading *r = &nv;
    enum verdict v = query(t, r, d);
    if (v == SILENT) {
        t = &rocm_smi;
        r = &rocm;
        v = query(t, r, d);
        if (v == SILENT)
            return refuse_silent(&nv, &rocm, d);
    }
    if (v == REFUSED)
        return false;
    if (r->kinds > 1)
        return refuse_mixed(c, t->name, r, d);
    const struct kind *k = &r->kind[0];
    int best = best_preset(c, k);
    if (best < 0)
        return diag_fail(d, "--gpu auto: %s reports '%s', which matches no preset (see kvplan list "
                            "gpus, or add one with --presets)", t->name, k->name);
    *count = r->count;
    *out = c->gpus[best].spec;
    out->memory_bytes = k->bytes;
    /* the driver's name is another program's bytes: kept as text (no control
     * byte, UTF-8 only), cut at a whole character so the closing ')' stays */
    char head[64], shown[SPEC_NAME_MAX];
    int n = snprintf(head, sizeof head, "this machine (%s: %llu MiB, ", t->name,
                     (unsigned long long)(k->bytes >> 20));
    text_sanitize(k->name, shown, sizeof out->memory_basis - (size_t)n - 1);
    snprintf(out->memory_basis, sizeof out->memory_basis, "%s%s)", head, shown);
    return true;
}
