#!/usr/bin/python3
"""calibrate's "KV tokens: predicted N, logged M" compares a vLLM log's "GPU
KV cache size" with kvplan's own line of that name, in the form of the log's
release (issue 22): num_blocks // groups x the smallest block up to 0.20
(kv_cache_utils.py _report_kv_cache_config), int(max_concurrency x
max_model_len) from 0.21.0 (report_kv_cache_config). For a windowed model
(gpt-oss-120b: a full and a sliding group) the two differ, and the pool's own
token count (blocks over groups x 16) is the older form's only.
Usage: t_calibrate_log_form.py path/to/kvplan. Ends with "N passed, N failed"."""
import re

from optionslib import check, main, run, write


def log(version, tokens):
    return ("INFO 05-14 10:02:14 [api_server.py:1043] vLLM API server version %s\n"
            "INFO 05-14 10:02:40 [gpu_worker.py:227] Available KV cache memory: 40.00 GiB\n"
            "INFO 05-14 10:02:42 [kv_cache_utils.py:634] GPU KV cache size: %s tokens\n"
            "INFO 05-14 10:02:42 [kv_cache_utils.py:638] Maximum concurrency for 131,072 "
            "tokens per request: 8.36x\n" % (version, tokens))


def compared(version, tokens):
    path = write("gpt-oss-%s.log" % version, log(version, tokens))
    status, out, err = run(["calibrate", path, "--model", "gpt-oss-120b", "--gpu", "h200"])
    line = re.search(r"^  GPU KV cache size: ([0-9,]+) tokens$", out, re.M)
    pred = re.search(r"KV tokens: predicted (\d+), logged (\d+)", out)
    return status, out + err, line and int(line.group(1).replace(",", "")), pred


def test_the_prediction_is_the_line_of_the_logs_release():
    # 40 GiB on an H200: 72,817 blocks, 582,528 tokens up to 0.20, 1,095,405 from 0.21
    # (tests/unit/test_vllm_log_rule.c); kvplan's own memory differs, its form does not
    for version, tokens in (("0.21.0", "1,095,405"), ("0.20.1", "582,528")):
        status, out, line, pred = compared(version, tokens)
        check("%s: calibrate compares the KV tokens" % version, status == 0 and pred and line, out[-800:])
        check("%s: the predicted figure is kvplan's own GPU KV cache size line" % version,
              pred and line and int(pred.group(1)) == line, out[-800:])
        check("%s: and the logged one the log's" % version,
              pred and int(pred.group(2)) == int(tokens.replace(",", "")), out[-400:])
    _, _, newer, _ = compared("0.21.0", "1,095,405")
    _, _, older, _ = compared("0.20.1", "582,528")
    check("the two releases' lines differ for a windowed model (about 1.9x)",
          newer and older and 1.7 < newer / older < 2.0, (newer, older))


if __name__ == "__main__":
    main([test_the_prediction_is_the_line_of_the_logs_release])
