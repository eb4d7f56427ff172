/* Shared by the tests that plan with the real catalogue (the presets compiled
 * into the binary): its setup and teardown, and a default scenario of a GPU
 * and a model by id. Static inline so each test file has its own and takes
 * what it uses. */
#ifndef KVPLAN_TESTS_CATALOG_FIXTURE_H
#define KVPLAN_TESTS_CATALOG_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/scenario.h"
#include "io/catalog.h"

static struct catalog cat;

static inline int setup(void **state)
{
    (void)state;
    struct diag d = {0};
    catalog_init(&cat);
    return catalog_load_embedded(&cat, &d) ? 0 : -1;
}

static inline int teardown(void **state)
{
    (void)state;
    catalog_free(&cat);
    return 0;
}

static inline struct scenario base(const char *gpu, const char *model)
{
    struct scenario s;
    const struct catalog_gpu *g = catalog_find_gpu(&cat, gpu);
    const struct catalog_model *m = catalog_find_model(&cat, model);
    assert_non_null(g);
    assert_non_null(m);
    scenario_default(&s, &g->spec, &m->spec);
    return s;
}

#endif
