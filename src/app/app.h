/* app: the interactive planner's event loop, and its headless screen dump. */
#ifndef KVPLAN_APP_APP_H
#define KVPLAN_APP_APP_H

#include <stdbool.h>

#include "core/plan.h"
#include "io/catalog.h"
#include "io/snapshot.h"

/* Runs the planner on the terminal until the user quits, on scenario s, or
 * on the session ss when it holds more than one scenario. Returns the exit
 * status; err gets the reason when the terminal cannot run it (status 3). */
int app_run(const struct catalog *c, const struct scenario *s, const struct snapshot_session *ss,
            bool mono, bool ascii, char *err, size_t errlen);

/* Renders the planner at cols x rows without a terminal, after feeding
 * `keys` (plain characters, and <Right>, <Left>, <Up>, <Down>, <Tab>,
 * <S-Tab>, <Enter>, <Esc>, <PgUp>, <PgDn>, <Home>, <End>, <S-Left>,
 * <S-Right>, <BS>), and writes the screen's text to path ("-" = stdout),
 * followed by its attribute grid when with_attrs (see term_dump_attrs). */
int app_dump(const struct catalog *c, const struct scenario *s, const struct snapshot_session *ss,
             const char *path, int cols,
             int rows, const char *keys, bool mono, bool ascii, bool with_attrs, char *err,
             size_t errlen);

#endif
