/* g: the SVG picture of the current scenario, or of the versus view's
 * scenarios when asked from it, drawn from their plans and curves. */
#include "app/planner.h"
#include "io/svg.h"

bool planner_export_svg(const struct planner *p, const char *path, bool versus, struct diag *d)
{
    int shown[SVG_SCENARIOS_MAX], n = versus ? planner_versus(p, shown) : 0;
    struct svg_item items[SVG_SCENARIOS_MAX];
    if (n < 2) {
        items[0] = (struct svg_item){"", planner_scenario(p), planner_result(p), planner_curve(p)};
        return svg_export(path, items, 1, d);
    }
    for (int k = 0; k < n && k < SVG_SCENARIOS_MAX; k++) {
        const struct planner_slot *sl = &p->slots[shown[k]];
        items[k] = (struct svg_item){sl->label, &sl->scenario, &sl->result, &sl->curve};
    }
    return svg_export(path, items, n < SVG_SCENARIOS_MAX ? n : SVG_SCENARIOS_MAX, d);
}
