/* The GPUs control's track: a count of GPUs sits at one place and a place
 * means one count, whatever the split of those GPUs (TP x PP x replicas). */
#include "catalog_fixture.h"

#include "app/planner.h"

/* A planner on llama-3.1-70b over H100s, split as asked (0: the default). */
static struct planner *split(uint32_t gpus, uint32_t tp, uint32_t pp)
{
    static struct planner p;
    struct scenario s = base("h100-sxm", "llama-3.1-70b");
    s.context_tokens = 8192;
    s.engine.kind = ENGINE_VLLM;
    s.gpus = gpus;
    s.tp = tp;
    s.pp = pp;
    planner_init(&p, &cat, &s);
    assert_int_equal(planner_scenario(&p)->gpus, gpus);
    return &p;
}

static const uint32_t layouts[][2] = {{0, 0}, {8, 2}, {4, 2}, {8, 0}, {2, 0}, {16, 0}, {4, 4}};
enum { LAYOUTS = sizeof layouts / sizeof layouts[0] };

static void sixteen_gpus_sit_at_one_place_whatever_the_split(void **state)
{
    (void)state;
    double place = planner_control_fraction(split(16, 0, 0), CTRL_GPUS);
    assert_true(place > 0 && place < 1);
    for (int i = 1; i < LAYOUTS; i++) {
        struct planner *p = split(16, layouts[i][0], layouts[i][1]);
        assert_int_equal(planner_result(p)->tp * planner_result(p)->pp,
                         layouts[i][0] * (layouts[i][1] ? layouts[i][1] : 1));
        double f = planner_control_fraction(p, CTRL_GPUS);
        if (f < place - 1e-9 || f > place + 1e-9)
            fail_msg("16 GPUs as TP %u x PP %u at %.4f on the track, as TP 16 at %.4f",
                     layouts[i][0], layouts[i][1], f, place);
    }
}

static void a_place_sets_the_count_it_shows_whatever_the_split(void **state)
{
    (void)state;
    /* the place of 32 GPUs, clicked with the GPUs split as TP 8 x PP 2 or
     * left to one replica: 32 either way, and 32 then sits there */
    double at32 = planner_control_fraction(split(32, 0, 0), CTRL_GPUS);
    for (int i = 0; i < LAYOUTS; i++) {
        struct planner *p = split(16, layouts[i][0], layouts[i][1]);
        p->focus = CTRL_GPUS;
        planner_set_fraction(p, CTRL_GPUS, at32);
        assert_int_equal(planner_scenario(p)->gpus, 32);
        double f = planner_control_fraction(p, CTRL_GPUS);
        assert_true(f > at32 - 1e-9 && f < at32 + 1e-9);
    }
}

static void wide_splits_still_step_past_the_track(void **state)
{
    (void)state;
    /* TP 8 x PP 2 at 64 GPUs: a step right is one replica more */
    struct planner *p = split(64, 8, 2);
    p->focus = CTRL_GPUS;
    planner_step(p, CTRL_GPUS, 1, false);
    assert_int_equal(planner_scenario(p)->gpus, 80);
    assert_true(planner_control_fraction(p, CTRL_GPUS) > 1 - 1e-9);
}

static void tp8_steps_on_to_solves_256_gpus(void **state)
{
    (void)state;
    /* TP 8 at 64 GPUs: a step right is a ninth replica (it stopped at 64),
     * and the steps end at the 256 GPUs solve searches */
    struct planner *p = split(64, 8, 0);
    p->focus = CTRL_GPUS;
    planner_step(p, CTRL_GPUS, 1, false);
    assert_int_equal(planner_scenario(p)->gpus, 72);
    for (int i = 0; i < 40; i++)
        planner_step(p, CTRL_GPUS, 1, false);
    assert_int_equal(planner_scenario(p)->gpus, 256);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sixteen_gpus_sit_at_one_place_whatever_the_split),
        cmocka_unit_test(a_place_sets_the_count_it_shows_whatever_the_split),
        cmocka_unit_test(wide_splits_still_step_past_the_track),
        cmocka_unit_test(tp8_steps_on_to_solves_256_gpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
