"""Shared by the t_launch_*.py tests: counting checks, and running each test
(one that breaks is a failure, the others still run) to the final line
"N passed, N failed"."""
import shutil
import sys

passed = failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s\n%s" % (what, detail))


def main(tests, tmp, setup=None):
    try:
        if setup:
            setup()
        for test in tests:
            try:
                test()
            except Exception as e:
                check(test.__name__, False, repr(e))
    finally:
        shutil.rmtree(tmp, True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
