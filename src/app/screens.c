/* screens: the table of the planner's screens, indexed by its mode. */
#include "app/screens.h"

static const struct screen *const screens[] = {
    [MODE_MAIN] = &screen_main,         [MODE_PRESENT] = &screen_present,
    [MODE_HELP] = &screen_help,         [MODE_PICKER] = &screen_picker,
    [MODE_PROMPT] = &screen_prompt,     [MODE_CONFIRM] = &screen_confirm,
    [MODE_COMPARE] = &screen_compare,   [MODE_WARNINGS] = &screen_warnings,
    [MODE_VERSUS] = &screen_versus,     [MODE_COPIED] = &screen_copied,
    [MODE_OPTIONS] = &screen_options,   [MODE_EXPLAIN] = &screen_explain,
    [MODE_LOAD] = &screen_load,
};

const struct screen *screen_of(enum planner_mode mode)
{
    return (unsigned)mode < sizeof screens / sizeof screens[0] && screens[mode] ? screens[mode]
                                                                                : &screen_main;
}

int screen_close_any(struct planner *p)
{
    p->mode = p->base;
    return PLAN_REDRAW;
}

int screen_close(struct planner *p, int key)
{
    p->mode = p->base;
    return key == 'q' || key == 'Q' ? keys_quit(p) : PLAN_REDRAW;
}
