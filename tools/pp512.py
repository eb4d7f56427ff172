"""pp512: kvplan's plan of llama-bench's prompt test, shared by the speed tools.

llama-bench's pp512 is one 512-token prompt alone; a llama.cpp case of
tests/data/speed-measurements.json with no prompt of its own gives its rate as
prefill_tokens_per_s. validate_speed.py, gen_speed_bands.py and fit_apple.py
compare kvplan's first token of such a prompt with it.
"""
PP_TOKENS = 512  # llama-bench's default prompt test


def plan_of(kvplan, c):
    """(result, error) of `kvplan plan` for case c's pp512: its context at least holds the
    prompt; (None, None) for a case with no llama-bench prefill rate."""
    import validate_speed as vs  # here: validate_speed imports this module
    if c["engine"] != "llama.cpp" or not c.get("prefill_tokens_per_s") or c["input_tokens"] != 0:
        return None, None
    args = vs.base_args(c)
    i = args.index("--context")
    args[i + 1] = str(max(int(args[i + 1]), PP_TOKENS + c["output_tokens"]))
    return vs.plan(kvplan, args + ["--prompt", str(PP_TOKENS), "--concurrency", "1"])
