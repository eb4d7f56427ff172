/* replay: runs every file of the given directories through one fuzz target,
 * so the seed corpus and every past crash are regression tests in `make test`
 * (built with the ordinary compiler and sanitizers, without libFuzzer).
 *
 * With --mutate first, each file also goes through a few hundred mutations
 * chosen by a fixed seed (the same inputs every run), so a binary parser is
 * tried on broken inputs without libFuzzer: bytes flipped, set to 0 or 0xff,
 * a little-endian count made huge, a range cut out or repeated, the input
 * cut short. Bounded: MUTATIONS a file. */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MUTATIONS = 300 };

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One mutation of in (n bytes) into out (room for 2n + 8); its length. */
static size_t mutate(const uint8_t *in, size_t n, uint8_t *out)
{
    memcpy(out, in, n);
    size_t at = n ? (size_t)(next() % n) : 0, len = n;
    switch (next() % 7) {
    case 0: /* a few bits flipped */
        for (int k = 0; k < 4 && n; k++)
            out[next() % n] ^= (uint8_t)(1u << (next() % 8));
        break;
    case 1: /* a byte set to an edge */
        if (n)
            out[at] = (uint8_t[]){0, 0xff, 0x7f, 0x80}[next() % 4];
        break;
    case 2: /* a u64 made huge or small at a random place */
        if (n >= 8) {
            uint64_t v = (uint64_t[]){UINT64_MAX, (uint64_t)1 << 62, 0, 5, 0xffffffffu}[next() % 5];
            at = (size_t)(next() % (n - 7));
            for (int k = 0; k < 8; k++)
                out[at + k] = (uint8_t)(v >> (8 * k));
        }
        break;
    case 3: /* cut short */
        len = at;
        break;
    case 4: { /* a range cut out */
        size_t cut = n - at ? (size_t)(next() % (n - at)) : 0;
        memmove(out + at, in + at + cut, n - at - cut);
        len = n - cut;
        break;
    }
    case 5: { /* a range repeated */
        size_t rep = n - at ? (size_t)(next() % (n - at)) % 64 : 0;
        memcpy(out + at + rep, in + at, n - at);
        len = n + rep;
        break;
    }
    default: /* a random byte */
        if (n)
            out[at] = (uint8_t)next();
    }
    return len;
}

/* The input and its mutations, each in a buffer of its own size (for the
 * sanitizers); the seed from the file's name, whatever the folder's order. */
static void run_mutations(const char *path, const uint8_t *in, size_t n)
{
    uint8_t *out = malloc(2 * n + 8);
    rng = 0x9e3779b97f4a7c15u;
    for (const char *c = strrchr(path, '/'); c && *c; c++)
        rng = (rng ^ (uint8_t)*c) * 0x100000001b3u;
    for (int i = 0; out && i < MUTATIONS; i++) {
        size_t len = mutate(in, n, out);
        uint8_t *exact = malloc(len ? len : 1);
        if (exact == NULL)
            break;
        memcpy(exact, out, len);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
    }
    free(out);
}

static bool mutating;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return 0;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        LLVMFuzzerTestOneInput(buf, n);
    if (buf && mutating)
        run_mutations(path, buf, n);
    free(buf);
    return mutating ? 1 + MUTATIONS : 1;
}

int main(int argc, char **argv)
{
    int files = 0, first = 1;
    if (argc > 1 && strcmp(argv[1], "--mutate") == 0)
        mutating = true, first = 2;
    for (int i = first; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (d == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                files += run_file(path);
        }
        closedir(d);
    }
    printf("%s %d inputs\n", mutating ? "mutated" : "replayed", files);
    return 0;
}
