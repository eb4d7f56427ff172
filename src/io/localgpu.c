#include "localgpu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/text.h"

extern char **environ;

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

/* How a driver tool's run ended. */
enum run_end { RUN_OK, RUN_NONE, RUN_TIMEOUT, RUN_TOO_BIG, RUN_TOO_MANY };

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Starts /bin/sh -c command in a process group of its own (so a timeout can
 * stop the whole pipeline), stdin from /dev/null, stdout into *fd. */
static pid_t spawn(const char *command, int *fd)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t dfl;
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addclose(&fa, p[0]);
    posix_spawn_file_actions_addclose(&fa, p[1]);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigdefault(&at, &dfl);
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        return -1;
    }
    *fd = p[0];
    return pid;
}

/* Reads fd to its end into buf (at most LOCALGPU_MAX_BYTES, then NUL) before
 * the deadline, refusing more bytes or more lines than a host can have. */
static enum run_end collect(int fd, long long deadline, char *buf, size_t *len)
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
            return r == 0 ? RUN_TIMEOUT : RUN_NONE;
        ssize_t n = read(fd, buf + *len, LOCALGPU_MAX_BYTES + 1 - *len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            buf[*len] = '\0';
            return n == 0 ? RUN_OK : RUN_NONE;
        }
        for (ssize_t i = 0; i < n; i++)
            lines += buf[*len + (size_t)i] == '\n';
        *len += (size_t)n;
        if (lines > LOCALGPU_MAX_GPUS)
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

/* Runs command, its whole output in buf; RUN_OK only when it exited 0. */
static enum run_end run(const char *command, char *buf)
{
    int fd = -1, status = 0;
    pid_t pid = spawn(command, &fd);
    if (pid < 0)
        return RUN_NONE;
    long long deadline = now_ms() + LOCALGPU_TIMEOUT_MS;
    size_t len = 0;
    enum run_end e = collect(fd, deadline, buf, &len);
    close(fd);
    if (e == RUN_OK && !reap(pid, deadline, &status))
        e = RUN_TIMEOUT;
    if (e != RUN_OK) {
        kill(-pid, SIGKILL); /* the shell and whatever it started */
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        return e;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? RUN_OK : RUN_NONE;
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

/* What a driver tool reported: the first GPU's name and memory, and how
 * many GPUs it lists. */
struct reading {
    char name[160];
    unsigned long long mib;
    unsigned count;
};

/* Runs command and reads its "name, MiB" lines into r. */
static enum run_end query(const char *command, struct reading *r)
{
    static char out[LOCALGPU_MAX_BYTES + 2];
    enum run_end e = run(command, out);
    if (e != RUN_OK)
        return e;
    r->count = 0;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *comma = strrchr(line, ',');
        if (comma == NULL)
            continue;
        *comma = '\0';
        unsigned long long m = strtoull(comma + 1, NULL, 10);
        if (m == 0)
            continue;
        if (r->count++ == 0) {
            clean_name(line, r->name, sizeof r->name);
            r->mib = m;
        }
    }
    if (r->count > LOCALGPU_MAX_GPUS)
        return RUN_TOO_MANY;
    return r->count > 0 ? RUN_OK : RUN_NONE;
}

/* Why a tool's answer is refused, or that no tool answered. */
static bool refuse(struct diag *d, const char *tool, enum run_end e)
{
    if (e == RUN_TIMEOUT)
        return diag_fail(d, "--gpu auto: %s did not answer within %d s and was stopped; name the "
                            "GPU instead (kvplan list gpus)", tool, LOCALGPU_TIMEOUT_MS / 1000);
    if (e == RUN_TOO_BIG)
        return diag_fail(d, "--gpu auto: %s printed more than %d bytes (a line for each of at most "
                            "%d GPUs); name the GPU instead (kvplan list gpus)", tool,
                         LOCALGPU_MAX_BYTES, LOCALGPU_MAX_GPUS);
    if (e == RUN_TOO_MANY)
        return diag_fail(d, "--gpu auto: %s lists more than %d GPUs, more than a host holds; name "
                            "the GPU and --gpus instead", tool, LOCALGPU_MAX_GPUS);
    return diag_fail(d, "--gpu auto: no GPU found on this machine (nvidia-smi and rocm-smi are "
                        "absent or list none); name a preset instead");
}

/* The preset whose name shares most words with the driver's, nearest in
 * memory among equals; -1 when none shares two words (the vendor alone). */
static int best_preset(const struct catalog *c, const struct reading *r)
{
    char want[16][32];
    int nw = words(r->name, want, 16);
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
        long long gap = llabs((long long)(g->memory_bytes >> 20) - (long long)r->mib);
        if (score > best_score || (score == best_score && score > 0 && gap < best_gap)) {
            best = (int)i;
            best_score = score;
            best_gap = gap;
        }
    }
    return best_score < 2 ? -1 : best;
}

bool localgpu_detect(const struct catalog *c, struct gpu_spec *out, unsigned *count,
                     struct diag *d)
{
    struct reading r = {.name = ""};
    const char *tool = "nvidia-smi";
    enum run_end e = query(
        "nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits 2>/dev/null", &r);
    if (e == RUN_NONE) {
        tool = "rocm-smi";
        e = query("rocm-smi --showproductname --showmeminfo vram --csv 2>/dev/null | "
                  "awk -F, 'NR>1 {print $2\",\"int($3/1048576)}'", &r);
    }
    if (e != RUN_OK)
        return refuse(d, tool, e);
    int best = best_preset(c, &r);
    if (best < 0)
        return diag_fail(d, "--gpu auto: %s reports '%s', which matches no preset (see kvplan list "
                            "gpus, or add one with --presets)", tool, r.name);
    *count = r.count;
    *out = c->gpus[best].spec;
    out->memory_bytes = (uint64_t)r.mib << 20;
    /* the driver's name is another program's bytes: kept as text (no control
     * byte, UTF-8 only), cut at a whole character so the closing ')' stays */
    char head[64], shown[SPEC_NAME_MAX];
    int n = snprintf(head, sizeof head, "this machine (%s: %llu MiB, ", tool, r.mib);
    text_sanitize(r.name, shown, sizeof out->memory_basis - (size_t)n - 1);
    snprintf(out->memory_basis, sizeof out->memory_basis, "%s%s)", head, shown);
    return true;
}
