/* plot: line charts drawn with braille dots (each cell 2 x 4 of them), or
 * one character a cell without UTF-8. A series is told apart from the others
 * by its colour and by its pattern of dots, so it reads without colour too.
 * Values and places come in as fractions of the plot: it knows no units. */
#ifndef KVPLAN_TUI_PLOT_H
#define KVPLAN_TUI_PLOT_H

#include <stdbool.h>

#include "widgets.h"

enum plot_pattern {
    PLOT_SOLID,  /* every dot */
    PLOT_DOTTED, /* every other column of dots */
    PLOT_DASHED, /* two columns of dots on, two off */
    PLOT_SPARSE, /* one column of dots in four */
    PLOT_PATTERNS
};

struct plot_series {
    const double *y; /* n heights in 0..1 of the plot, spread evenly across it; < 0: no point */
    int n;
    enum role role;
    enum plot_pattern pattern;
};

enum { PLOT_MAX_W = 512, PLOT_MAX_H = 128 };

/* The series in r, joined point to point (a step drawn as a rule); where
 * two meet, the earlier one's colour. Cells without a dot are left alone. */
void widget_plot(struct rect r, const struct plot_series *s, int count);

/* The cell of r at fractions (fx across, fy up) of the plot, as
 * widget_plot places its dots: its column and row. */
void widget_plot_cell(struct rect r, double fx, double fy, int *x, int *y);

/* A short level line in the pattern (what a legend shows of a series):
 * w cells from (y, x). */
void widget_plot_sample(int y, int x, int w, enum plot_pattern pattern, enum role role);

#endif
