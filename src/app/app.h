/* app: the interactive planner's event loop, and its headless screen dump. */
#ifndef KVPLAN_APP_APP_H
#define KVPLAN_APP_APP_H

#include <stdbool.h>

#include "core/plan.h"
#include "io/catalog.h"
#include "io/snapshot.h"

/* What the planner opens: scenario s, or the session ss when it holds more
 * than one scenario, and where they came from, for the command y copies. */
struct app_input {
    const struct catalog *catalog;
    const struct scenario *scenario;
    const struct snapshot_session *session;  /* NULL: s alone */
    const char *load_path;                   /* --load FILE, or NULL */
    const char *scenario_label;              /* --scenario NAME, or NULL */
    const char *const *preset_dirs;          /* the --presets directories */
    int preset_dir_count;
    uint64_t prefix_asked; /* the prefix asked when the options held it (0: none held) */
};

/* Runs the planner on the terminal until the user quits. Returns the exit
 * status; err gets the reason when the terminal cannot run it (status 3). */
int app_run(const struct app_input *in, bool mono, bool ascii, char *err, size_t errlen);

/* How app_dump renders the planner: at cols x rows, without a terminal,
 * after feeding `keys` (plain characters, and <Right>, <Left>, <Up>,
 * <Down>, <Tab>, <S-Tab>, <Enter>, <Esc>, <PgUp>, <PgDn>, <Home>, <End>,
 * <S-Left>, <S-Right>, <BS>); the screen's text goes to path ("-" =
 * stdout), followed by its attribute grid when with_attrs (see
 * term_dump_attrs). */
struct app_dump_options {
    const char *path;
    int cols, rows;
    const char *keys; /* NULL: none */
    bool mono, ascii; /* monochrome; ASCII glyphs */
    bool with_attrs;
};

/* Renders the planner as o says. Returns the exit status; err gets the
 * reason for a status of 2 (a key name it does not know, a file it cannot
 * write). */
int app_dump(const struct app_input *in, const struct app_dump_options *o, char *err,
             size_t errlen);

#endif
