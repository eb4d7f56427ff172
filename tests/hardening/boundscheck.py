"""Counting checks for the t_bounds_*.py tests: check() each, then finish()
prints "N passed, N failed" and exits non-zero on a failure."""
import sys


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL:", what)

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
