/* Shared by the tests that draw on a headless screen (term_open_headless,
 * UTF-8): opening one of a size, and closing it. */
#ifndef KVPLAN_TESTS_SCREEN_FIXTURE_H
#define KVPLAN_TESTS_SCREEN_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>
#include <locale.h>

#include "tui/term.h"

static inline int screen_open(int cols, int rows, bool mono)
{
    setlocale(LC_ALL, "C.UTF-8");
    struct term_caps caps;
    char err[128];
    if (!term_open_headless(cols, rows, mono, false, &caps, err, sizeof err))
        fail_msg("%s", err);
    return 0;
}

static inline int close_screen(void **state)
{
    (void)state;
    term_close();
    return 0;
}

#endif
