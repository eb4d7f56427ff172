/* outbuf: text written to a stream through a buffer of its own, numbers
 * formatted without printf: the rows of a sweep, millions of fields. The
 * bytes are exactly those printf's "%llu" and "%.6g" write; only the cost
 * differs (a field through stdio's printf is about a thousand instructions,
 * here a few dozen). */
#ifndef KVPLAN_IO_OUTBUF_H
#define KVPLAN_IO_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { OUTBUF_SIZE = 64 * 1024, OUTBUF_G6_MAX = 32 };

struct outbuf {
    FILE *f;
    size_t n;
    bool failed; /* a write to f failed: what follows is dropped */
    char buf[OUTBUF_SIZE];
};

void outbuf_init(struct outbuf *o, FILE *f);
void outbuf_mem(struct outbuf *o, const char *s, size_t n);
void outbuf_str(struct outbuf *o, const char *s);
/* As printf's "%llu". */
void outbuf_uint(struct outbuf *o, uint64_t v);
/* As printf's "%.6g". */
void outbuf_g6(struct outbuf *o, double v);
/* Room for n bytes (at most OUTBUF_SIZE) after what is buffered, written
 * straight into the buffer: write there, then outbuf_commit where the
 * writing ended. */
char *outbuf_room(struct outbuf *o, size_t n);
void outbuf_commit(struct outbuf *o, const char *end);
/* v's "%llu" or "%.6g" text at p; return its end. */
char *outbuf_put_uint(char *p, uint64_t v);
char *outbuf_put_g6(char *p, double v);
/* Hands what is buffered to the stream (not fflush); false when a write
 * failed, now or before. */
bool outbuf_flush(struct outbuf *o);

/* v as printf's "%.6g" writes it, into out (OUTBUF_G6_MAX bytes); returns
 * its length. */
size_t outbuf_format_g6(double v, char *out);

#endif
